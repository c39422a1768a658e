package host

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/shirou/gopsutil/v4/disk"
	"github.com/shirou/gopsutil/v4/mem"
	"github.com/tklauser/numcpus"
)

// refreshEvery is how old a figure that can change (a cgroup's CPU limit,
// free disk) may be before it is read again.
const refreshEvery = time.Second

// Meter measures the host once and refreshes only what can change: the
// CPU count and total memory stay as first read; the cgroup CPU limit and
// free disk are read again when older than a second. Measure on a Meter
// costs a lock and a clock read, not a trip through /proc and /sys, so a
// quote (Defaults) or a start can ask it freely.
type Meter struct {
	root  string
	now   func() time.Time
	probe probes

	mu      sync.Mutex
	fixed   Info // CPUCount and TotalMemoryBytes; zero until read
	cores   float64
	coresAt time.Time
	disk    uint64
	diskAt  time.Time
}

// probes are the readings a measurement is made of; tests count them.
type probes struct {
	cpus   func(ctx context.Context) (int, error)
	memory func(ctx context.Context) (uint64, error)
	limit  func() (float64, bool)
	free   func(ctx context.Context, dir string) (uint64, error)
}

// NewMeter measures the host holding root (see Measure).
func NewMeter(root string) *Meter {
	return &Meter{root: root, now: time.Now, probe: probes{
		// numcpus counts the online CPUs as gopsutil's cpu package did,
		// without its init, which reads /proc/stat twice in every process
		// that links it: each CLI command
		cpus: func(context.Context) (int, error) { return numcpus.GetOnline() },
		memory: func(ctx context.Context) (uint64, error) {
			vm, err := mem.VirtualMemoryWithContext(ctx)
			if err != nil {
				return 0, err
			}
			return vm.Total, nil
		},
		limit: func() (float64, bool) { return cgroupCores("/") },
		free: func(ctx context.Context, dir string) (uint64, error) {
			u, err := disk.UsageWithContext(ctx, dir)
			if err != nil {
				return 0, err
			}
			return u.Free, nil
		},
	}}
}

// Measure returns the host's measurement, reading again only what is
// older than refreshEvery. A failed reading is not kept: the next call
// tries again.
func (m *Meter) Measure(ctx context.Context) (Info, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fixed.CPUCount == 0 || m.fixed.TotalMemoryBytes == 0 {
		fixed, err := m.readFixed(ctx)
		if err != nil {
			return Info{}, err
		}
		m.fixed = fixed
	}
	now := m.now()
	if m.coresAt.IsZero() || now.Sub(m.coresAt) >= refreshEvery || now.Before(m.coresAt) {
		m.cores = float64(m.fixed.CPUCount)
		if limit, ok := m.probe.limit(); ok && limit < m.cores {
			m.cores = limit
		}
		m.coresAt = now
	}
	if m.diskAt.IsZero() || now.Sub(m.diskAt) >= refreshEvery || now.Before(m.diskAt) {
		dir := existingParent(m.root)
		free, err := m.probe.free(ctx, dir)
		if err != nil {
			return Info{}, fmt.Errorf("measure free disk under %s: %w", dir, err)
		}
		m.disk, m.diskAt = free, now
	}
	info := m.fixed
	info.EffectiveCPUCores, info.AvailableDiskBytes = m.cores, m.disk
	return info, nil
}

func (m *Meter) readFixed(ctx context.Context) (Info, error) {
	n, err := m.probe.cpus(ctx)
	if err != nil || n < 1 {
		return Info{}, fmt.Errorf("measure host CPUs: %w", orUnknown(err))
	}
	total, err := m.probe.memory(ctx)
	if err != nil || total == 0 {
		return Info{}, fmt.Errorf("measure host memory: %w", orUnknown(err))
	}
	return Info{CPUCount: n, TotalMemoryBytes: total}, nil
}
