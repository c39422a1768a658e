package rules

import (
	"errors"
	"testing"

	"sandboxdesk/host"
	"sandboxdesk/ipc"
)

func TestRecommendCapacity(t *testing.T) {
	mx2 := host.Info{CPUCount: 4, TotalMemoryBytes: 15461882265, AvailableDiskBytes: 239 * gib} // 14.4 GiB
	tests := []struct {
		name        string
		host        host.Info
		size        ipc.Size
		checkpoints bool
		want        ipc.Recommended
	}{
		{name: "4 vCPU, 14.4 GiB, 239 GiB free, Standard, checkpoints", host: mx2, size: StandardSize, checkpoints: true, want: ipc.Recommended{AtOnce: 3, Retained: 14}},
		{name: "same host, backend without checkpoints", host: mx2, size: StandardSize, want: ipc.Recommended{AtOnce: 3, Retained: 3}},
		{name: "host that fits one sandbox", host: host.Info{CPUCount: 2, TotalMemoryBytes: 6 * gib, AvailableDiskBytes: 10 * gib}, size: StandardSize, checkpoints: true, want: ipc.Recommended{AtOnce: 1, Retained: 1}},
		{name: "host too small for even one still gets one", host: host.Info{CPUCount: 1, TotalMemoryBytes: 1 * gib}, size: StandardSize, checkpoints: true, want: ipc.Recommended{AtOnce: 1, Retained: 1}},
		{name: "cgroup-limited CPUs bind before memory", host: host.Info{CPUCount: 64, EffectiveCPUCores: 2, TotalMemoryBytes: 128 * gib, AvailableDiskBytes: 100 * gib}, size: StandardSize, want: ipc.Recommended{AtOnce: 2, Retained: 2}},
		{name: "fractional cgroup quota", host: host.Info{CPUCount: 8, EffectiveCPUCores: 1.5, TotalMemoryBytes: 64 * gib}, size: ipc.Size{CPUs: 1, MemoryMiB: 2048, DiskMiB: 8192}, want: ipc.Recommended{AtOnce: 3, Retained: 3}},
		{name: "memory binds on a big-CPU host", host: host.Info{CPUCount: 32, TotalMemoryBytes: 16 * gib, AvailableDiskBytes: 500 * gib}, size: StandardSize, checkpoints: true, want: ipc.Recommended{AtOnce: 3, Retained: 31}},
		{name: "retained never below at once", host: host.Info{CPUCount: 16, TotalMemoryBytes: 64 * gib, AvailableDiskBytes: 16 * gib}, size: StandardSize, checkpoints: true, want: ipc.Recommended{AtOnce: 15, Retained: 15}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := RecommendCapacity(tt.host, tt.size, tt.checkpoints)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestRecommendCapacityRefusesToGuess(t *testing.T) {
	for _, h := range []host.Info{{}, {CPUCount: 4}, {TotalMemoryBytes: 16 * gib}} {
		if _, err := RecommendCapacity(h, StandardSize, false); !errors.Is(err, ErrHostUnmeasured) {
			t.Errorf("RecommendCapacity(%+v) error = %v, want ErrHostUnmeasured", h, err)
		}
	}
	h := host.Info{CPUCount: 4, TotalMemoryBytes: 16 * gib}
	for _, s := range []ipc.Size{{}, {CPUs: 2, MemoryMiB: 4096}, {CPUs: 0, MemoryMiB: 4096, DiskMiB: 1}} {
		if _, err := RecommendCapacity(h, s, false); err == nil {
			t.Errorf("RecommendCapacity with size %+v succeeded", s)
		}
	}
}

func TestPlanDefaults(t *testing.T) {
	h := host.Info{CPUCount: 8, EffectiveCPUCores: 2, TotalMemoryBytes: 16 * gib}
	tests := []struct {
		name      string
		active    int
		committed int64
		want      ipc.Defaults
	}{
		{"alone", 0, 0, ipc.Defaults{MemoryMiB: 8192, CPUs: 2, DiskMiB: 8192, BudgetMiB: 8192}},
		{"beside one starting", 1, 0, ipc.Defaults{MemoryMiB: 4096, CPUs: 2, DiskMiB: 8192, BudgetMiB: 8192, Active: 1}},
		{"beside one holding 8", 1, 8192, ipc.Defaults{MemoryMiB: 2048, CPUs: 2, DiskMiB: 8192, BudgetMiB: 8192, CommittedMiB: 8192, Active: 1}},
		{"beside one holding 2", 1, 2048, ipc.Defaults{MemoryMiB: 4096, CPUs: 2, DiskMiB: 8192, BudgetMiB: 8192, CommittedMiB: 2048, Active: 1}},
	}
	for _, tt := range tests {
		if got := PlanDefaults(h, tt.active, tt.committed); got != tt.want {
			t.Errorf("%s: got %+v, want %+v", tt.name, got, tt.want)
		}
	}
}
