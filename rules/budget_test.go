package rules

import "testing"

const gib = 1 << 30

func TestDefaultMemoryMiB(t *testing.T) {
	tests := []struct {
		name      string
		total     uint64
		sandboxes int
		committed int64
		want      int64
	}{
		// The 16 GiB table.
		{name: "16 GiB, nothing else running", total: 16 * gib, sandboxes: 1, want: 8192},
		{name: "16 GiB, two starting together", total: 16 * gib, sandboxes: 2, want: 4096},
		{name: "16 GiB, beside one holding 8", total: 16 * gib, sandboxes: 2, committed: 8192, want: 2048},
		{name: "16 GiB, beside one holding 2", total: 16 * gib, sandboxes: 2, committed: 2048, want: 4096},
		// The cap still applies to a share on a large host.
		{name: "128 GiB, alone: share 64 capped", total: 128 * gib, sandboxes: 1, want: 8192},
		{name: "128 GiB, four: share 16 capped", total: 128 * gib, sandboxes: 4, want: 8192},
		{name: "128 GiB, eight: share 8", total: 128 * gib, sandboxes: 8, want: 8192},
		{name: "128 GiB, sixteen: share 4", total: 128 * gib, sandboxes: 16, want: 4096},
		// The floor beats the budget.
		{name: "4 GiB host: budget 2", total: 4 * gib, sandboxes: 1, want: 2048},
		{name: "2 GiB host: budget 1, floor wins", total: 2 * gib, sandboxes: 1, want: 2048},
		{name: "1 GiB host: budget 0, floor wins", total: 1 * gib, sandboxes: 1, want: 2048},
		{name: "8 GiB, three: share 1, floor wins", total: 8 * gib, sandboxes: 3, want: 2048},
		// A committed total above the budget.
		{name: "16 GiB, 12 GiB committed (over budget)", total: 16 * gib, sandboxes: 2, committed: 12288, want: 2048},
		{name: "16 GiB, committed 1 MiB over budget", total: 16 * gib, sandboxes: 2, committed: 8193, want: 2048},
		{name: "16 GiB, committed 100 GiB (hand-typed)", total: 16 * gib, sandboxes: 1, committed: 102400, want: 2048},
		// Free binds below the share.
		{name: "32 GiB, two, one holding 12", total: 32 * gib, sandboxes: 2, committed: 12288, want: 4096},
		{name: "32 GiB, free rounds down", total: 32 * gib, sandboxes: 1, committed: 10000, want: 6144},
		// A zero count is read as one.
		{name: "16 GiB, zero count", total: 16 * gib, sandboxes: 0, want: 8192},
		{name: "16 GiB, negative count", total: 16 * gib, sandboxes: -2, want: 8192},
		// Budget is in whole GiB: 14.4 GiB gives 7.
		{name: "14.4 GiB host alone", total: 15461882265, sandboxes: 1, want: 7168},
		{name: "zero host", total: 0, sandboxes: 1, want: 2048},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DefaultMemoryMiB(tt.total, tt.sandboxes, tt.committed); got != tt.want {
				t.Errorf("DefaultMemoryMiB(%d GiB, %d, %d) = %d, want %d", tt.total/gib, tt.sandboxes, tt.committed, got, tt.want)
			}
		})
	}
}

// TestDefaultMemorySplit pins the split across 1 to 8 sandboxes starting
// together, with nothing committed, on a 16 and a 64 GiB host.
func TestDefaultMemorySplit(t *testing.T) {
	want := map[uint64][]int64{
		16: {8192, 4096, 2048, 2048, 2048, 2048, 2048, 2048},
		64: {8192, 8192, 8192, 8192, 6144, 5120, 4096, 4096},
	}
	for hostGiB, row := range want {
		for i, w := range row {
			n := i + 1
			if got := DefaultMemoryMiB(hostGiB*gib, n, 0); got != w {
				t.Errorf("%d GiB host, %d sandboxes: got %d, want %d", hostGiB, n, got, w)
			}
		}
	}
}

func TestBudgetMiB(t *testing.T) {
	tests := []struct {
		total uint64
		want  int64
	}{
		{16 * gib, 8192},
		{15461882265, 7168},
		{24 * gib, 12 * 1024},
		{1 * gib, 0},
		{0, 0},
	}
	for _, tt := range tests {
		if got := BudgetMiB(tt.total); got != tt.want {
			t.Errorf("BudgetMiB(%d) = %d, want %d", tt.total, got, tt.want)
		}
	}
}

func TestFloorDiv(t *testing.T) {
	tests := []struct{ a, b, want int64 }{
		{7, 2, 3}, {-7, 2, -4}, {-8, 2, -4}, {0, 5, 0}, {-1, 1024, -1}, {1023, 1024, 0},
	}
	for _, tt := range tests {
		if got := floorDiv(tt.a, tt.b); got != tt.want {
			t.Errorf("floorDiv(%d, %d) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestDefaultCPUs(t *testing.T) {
	tests := []struct {
		cores float64
		want  int
	}{
		{16, 4}, {4, 4}, {2, 2}, {1.5, 1}, {0.5, 1}, {0, 1},
	}
	for _, tt := range tests {
		if got := DefaultCPUs(tt.cores); got != tt.want {
			t.Errorf("DefaultCPUs(%v) = %d, want %d", tt.cores, got, tt.want)
		}
	}
}

func TestRanges(t *testing.T) {
	vm, err := RangesFor(KindVM)
	if err != nil {
		t.Fatal(err)
	}
	proc, err := RangesFor(KindProcess)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := RangesFor("teapot"); err == nil {
		t.Error("RangesFor(teapot) succeeded")
	}
	tests := []struct {
		name string
		err  error
		ok   bool
	}{
		{"VM 1024 MiB (validator floor)", vm.CheckMemoryMiB(1024), true},
		{"VM 1023 MiB", vm.CheckMemoryMiB(1023), false},
		{"VM 64 GiB", vm.CheckMemoryMiB(65536), true},
		{"VM 65 GiB", vm.CheckMemoryMiB(65537), false},
		{"process 64 MiB", proc.CheckMemoryMiB(64), true},
		{"process 63 MiB", proc.CheckMemoryMiB(63), false},
		{"0 CPUs", vm.CheckCPUs(0), false},
		{"1 CPU", vm.CheckCPUs(1), true},
		{"65 CPUs", vm.CheckCPUs(65), false},
		{"disk 512 MiB", vm.CheckDiskMiB(512), false},
		{"disk 8 GiB", vm.CheckDiskMiB(8192), true},
	}
	for _, tt := range tests {
		if (tt.err == nil) != tt.ok {
			t.Errorf("%s: got %v, want ok=%v", tt.name, tt.err, tt.ok)
		}
	}
	if got := vm.CheckMemoryMiB(512).Error(); got != "memory must be 1 GiB to 64 GiB" {
		t.Errorf("VM memory message = %q", got)
	}
}
