package bubblewrap

// Process limit bounds: a sandbox gets at most maxDefaultPids processes
// and threads by default (a parallel build of a large project stays well
// under it), and never fewer than minPids.
const (
	maxDefaultPids = 4096
	minPids        = 64
)

// defaultPids is a sandbox's process limit when it names none: an eighth
// of the host's pid space (the smaller of pid_max and threads-max, since
// every thread takes a pid), at most maxDefaultPids. A fork bomb in one
// sandbox then stops at its limit, and even seven sandboxes at theirs leave
// the host an eighth of its pids to keep answering. A host that cannot be
// read gets maxDefaultPids.
func defaultPids(pidMax, threadsMax int64) int64 {
	space := pidMax
	if threadsMax > 0 && (space <= 0 || threadsMax < space) {
		space = threadsMax
	}
	if space <= 0 {
		return maxDefaultPids
	}
	return max(minPids, min(space/8, maxDefaultPids))
}
