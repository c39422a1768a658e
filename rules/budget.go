package rules

// The memory rule. A VM's memory is fixed at boot and held for as long as
// it runs, so sandboxes share one budget: half of the host's RAM. A sandbox
// that names no memory of its own gets an even share of the budget or what
// is really left of it, whichever is smaller, clamped to [floor, cap].
//
// Both measures are needed: an even share alone ignores that a sandbox which
// started alone took the whole budget and cannot give it back; what is left
// alone would floor the second sandbox even when the first holds very little.
const (
	// MemoryFloorMiB beats the budget: a guest too small to run a toolchain
	// is worse than a tight host, and the user can still type a value.
	MemoryFloorMiB int64 = 2048
	// MemoryCapMiB keeps one sandbox from taking a whole large host.
	MemoryCapMiB int64 = 8192
)

const mibPerGiB = 1024

// BudgetMiB is half the host's RAM, in whole GiB, expressed in MiB.
func BudgetMiB(totalBytes uint64) int64 {
	return int64(totalBytes/2/(1<<30)) * mibPerGiB
}

// DefaultMemoryMiB is the memory a newcomer gets when neither it nor
// Settings names one. sandboxes counts the sandboxes starting or running,
// the newcomer included (a zero count is treated as one); committedMiB is
// the sum of what running sandboxes really reserved.
func DefaultMemoryMiB(totalBytes uint64, sandboxes int, committedMiB int64) int64 {
	budgetGiB := BudgetMiB(totalBytes) / mibPerGiB
	shareGiB := budgetGiB / int64(max(sandboxes, 1))
	freeGiB := floorDiv(budgetGiB*mibPerGiB-committedMiB, mibPerGiB)
	return min(max(min(shareGiB, freeGiB)*mibPerGiB, MemoryFloorMiB), MemoryCapMiB)
}

// floorDiv divides rounding towards minus infinity, as the rule's floor()
// does: a committed total above the budget leaves a negative free amount,
// and truncation would round -0.8 GiB up to 0.
func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// DefaultCPUs is the CPU count a sandbox gets when it names none. CPUs are
// time-sliced rather than reserved, so they are not shared out: four each
// oversubscribes nothing.
func DefaultCPUs(effectiveCores float64) int {
	return max(1, min(4, int(effectiveCores)))
}
