package host

import (
	"path/filepath"
	"testing"
)

func TestCgroupCores(t *testing.T) {
	tests := []struct {
		tree      string
		want      float64
		wantLimit bool
	}{
		{"v2-quota", 1.5, true},
		{"v2-parent-quota", 2, true},
		{"v2-unlimited", 12, true}, // only the cpuset, which equals the CPU count
		{"v2-container", 0.5, true},
		{"v2-cpuset", 3, true},
		{"v1-quota", 2.5, true},
		{"hybrid-cpuset", 2, true},
		{"none", 0, false},
		{"missing-tree", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.tree, func(t *testing.T) {
			got, ok := cgroupCores(filepath.Join("..", "testdata", "cgroup", tt.tree))
			if ok != tt.wantLimit || (ok && got != tt.want) {
				t.Errorf("cgroupCores(%s) = %v, %v; want %v, %v", tt.tree, got, ok, tt.want, tt.wantLimit)
			}
		})
	}
}

func TestCpusetCount(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		list string
		want float64
		ok   bool
	}{
		{"0-3", 4, true},
		{"0-3,6,8-9", 7, true},
		{"5", 1, true},
		{"", 0, false},
		{"3-1", 0, false},
		{"a-b", 0, false},
	}
	for _, tt := range tests {
		file := filepath.Join(dir, "cpus")
		writeFile(t, file, tt.list+"\n")
		got, ok := cpusetCount(file)
		if ok != tt.ok || got != tt.want {
			t.Errorf("cpusetCount(%q) = %v, %v; want %v, %v", tt.list, got, ok, tt.want, tt.ok)
		}
	}
}

func TestMeasureThisHost(t *testing.T) {
	info, err := Measure(t.Context(), filepath.Join(t.TempDir(), "not", "yet", "made"))
	if err != nil {
		t.Fatal(err)
	}
	if info.CPUCount < 1 || info.TotalMemoryBytes == 0 || info.EffectiveCPUCores <= 0 || info.EffectiveCPUCores > float64(info.CPUCount) {
		t.Errorf("implausible measurement %+v", info)
	}
	if info.Cores() != info.EffectiveCPUCores {
		t.Errorf("Cores() = %v, want the effective %v", info.Cores(), info.EffectiveCPUCores)
	}
}

func TestCoresFallsBackToCount(t *testing.T) {
	if got := (Info{CPUCount: 6}).Cores(); got != 6 {
		t.Errorf("Cores() = %v, want 6", got)
	}
}

func TestOwnCgroups(t *testing.T) {
	root := filepath.Join("..", "testdata", "cgroup")
	v1 := ownCgroups(filepath.Join(root, "v1-quota"))
	if got := v1.V1["cpu"]; got != filepath.Join(root, "v1-quota", "sys/fs/cgroup/cpu,cpuacct/docker/abc") {
		t.Errorf("v1 cpu folder %q", got)
	}
	if got := v1.V1["cpuset"]; got != filepath.Join(root, "v1-quota", "sys/fs/cgroup/cpuset/docker/abc") {
		t.Errorf("v1 cpuset folder %q", got)
	}
	if v1.V2 != "" {
		t.Errorf("v1 host has a v2 folder %q", v1.V2)
	}
	v2 := ownCgroups(filepath.Join(root, "v2-quota"))
	if want := filepath.Join(root, "v2-quota", "sys/fs/cgroup/user.slice/app.scope"); v2.V2 != want || len(v2.V1) != 0 {
		t.Errorf("v2 folders %+v, want %s", v2, want)
	}
}
