package rules

import (
	"fmt"

	"sandboxdesk/units"
)

// Kind tells the fixed ranges apart: a VM reserves its memory, host
// processes only run under a limit. Each backend says which it is.
type Kind string

const (
	KindVM      Kind = "vm"
	KindProcess Kind = "process"
)

// Range is an inclusive range of whole numbers.
type Range struct{ Min, Max int64 }

// Contains reports whether v lies in the range.
func (r Range) Contains(v int64) bool { return v >= r.Min && v <= r.Max }

// Ranges are the values a person may type for a sandbox of one kind. They
// are fixed (they do not depend on the host), declared here once and shared
// by the UI, the CLI and the controller's own validation.
type Ranges struct {
	MemoryMiB Range
	CPUs      Range
	DiskMiB   Range
}

// ValidatorFloorVMMiB is the least memory a typed value may give a VM: a
// smaller guest cannot run a toolchain. It sits below MemoryFloorMiB, which
// is what the controller hands out unasked.
const ValidatorFloorVMMiB int64 = 1024

// ValidatorFloorProcessMiB is the least memory limit for host processes:
// a bubblewrap sandbox's memory is only a cgroup limit, so it may be small.
const ValidatorFloorProcessMiB int64 = 64

var ranges = map[Kind]Ranges{
	KindVM: {
		MemoryMiB: Range{ValidatorFloorVMMiB, 64 * mibPerGiB},
		CPUs:      Range{1, 64},
		DiskMiB:   Range{1 * mibPerGiB, 2048 * mibPerGiB},
	},
	KindProcess: {
		MemoryMiB: Range{ValidatorFloorProcessMiB, 64 * mibPerGiB},
		CPUs:      Range{1, 64},
		DiskMiB:   Range{1 * mibPerGiB, 2048 * mibPerGiB},
	},
}

// RangesFor returns the fixed ranges for a kind of sandbox.
func RangesFor(k Kind) (Ranges, error) {
	r, ok := ranges[k]
	if !ok {
		return Ranges{}, fmt.Errorf("unknown sandbox kind %q", k)
	}
	return r, nil
}

// CheckMemoryMiB says, in words a person can act on, why v is out of range.
func (r Ranges) CheckMemoryMiB(v int64) error {
	if !r.MemoryMiB.Contains(v) {
		return fmt.Errorf("memory must be %s to %s", units.FormatMiB(r.MemoryMiB.Min), units.FormatMiB(r.MemoryMiB.Max))
	}
	return nil
}

// CheckCPUs says why v is not an allowed CPU count.
func (r Ranges) CheckCPUs(v int64) error {
	if !r.CPUs.Contains(v) {
		return fmt.Errorf("CPUs must be %d to %d", r.CPUs.Min, r.CPUs.Max)
	}
	return nil
}

// CheckDiskMiB says why v is not an allowed disk size.
func (r Ranges) CheckDiskMiB(v int64) error {
	if !r.DiskMiB.Contains(v) {
		return fmt.Errorf("disk must be %s to %s", units.FormatMiB(r.DiskMiB.Min), units.FormatMiB(r.DiskMiB.Max))
	}
	return nil
}
