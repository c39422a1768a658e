// Package host measures the machine sandboxdesk runs on: CPUs (and how many
// of them a cgroup really lets us use), memory and free disk. The controller
// turns these measurements into a memory budget and a recommended capacity;
// this package only measures, it decides nothing.
package host

import (
	"context"
	"errors"
	"os"
	"path/filepath"
)

// Info is one measurement of the host. Field names match the JSON the CLI
// prints and the capacity rule's vocabulary.
type Info struct {
	// CPUCount is the number of logical CPUs the kernel reports.
	CPUCount int `json:"cpuCount"`
	// EffectiveCPUCores is what a cgroup quota or cpuset really allows;
	// equal to CPUCount when no limit applies.
	EffectiveCPUCores float64 `json:"effectiveCpuCores"`
	// TotalMemoryBytes is the host's RAM.
	TotalMemoryBytes uint64 `json:"totalMemoryBytes"`
	// AvailableDiskBytes is what an unprivileged user may still write on
	// the file system holding the root folder.
	AvailableDiskBytes uint64 `json:"availableDiskBytes"`
}

// Cores is the CPU figure the capacity rule uses: the cgroup-effective
// cores when known, else the CPU count.
func (i Info) Cores() float64 {
	if i.EffectiveCPUCores > 0 {
		return i.EffectiveCPUCores
	}
	return float64(i.CPUCount)
}

// Measure takes a fresh measurement. root is the folder whose file
// system's free space counts; it need not exist yet (its nearest existing
// parent is used). A caller that asks often keeps a Meter instead.
func Measure(ctx context.Context, root string) (Info, error) {
	return NewMeter(root).Measure(ctx)
}

func orUnknown(err error) error {
	if err == nil {
		return errors.New("the system reported nothing")
	}
	return err
}

// existingParent walks up from dir to the first folder that exists, so free
// space can be measured before the root folder is first created.
func existingParent(dir string) string {
	dir = filepath.Clean(dir)
	for {
		if _, err := os.Stat(dir); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return dir
		}
		dir = parent
	}
}
