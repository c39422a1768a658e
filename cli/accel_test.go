package cli

import (
	"testing"
	"time"

	"sandboxdesk/ipc"
)

// A running VM shows how it runs, in list and inspect; a process sandbox
// and a stopped VM say nothing of it.
func TestListAndInspectShowHowAVMRuns(t *testing.T) {
	tests := []struct {
		name        string
		sb          ipc.Sandbox
		wantBackend string
		wantAccel   string // the inspect row; "" when there is none
		wantMemory  string
	}{
		{"a VM under software emulation",
			ipc.Sandbox{Name: "v", Backend: "vm", State: ipc.StateRunning, ReservedMiB: 4096, Accel: "tcg"},
			"vm (tcg)", "tcg (software emulation: KVM does not work on this host, so the VM is slow)", "4 GiB reserved"},
		{"a VM under KVM",
			ipc.Sandbox{Name: "v", Backend: "vm", State: ipc.StateRunning, ReservedMiB: 2048, Accel: "kvm"},
			"vm (kvm)", "kvm (hardware virtualisation)", "2 GiB reserved"},
		{"a stopped VM",
			ipc.Sandbox{Name: "v", Backend: "vm", State: ipc.StateStopped},
			"vm", "", "default at start"},
		{"host processes",
			ipc.Sandbox{Name: "p", Backend: "bubblewrap", State: ipc.StateRunning, MemoryLimitMiB: 512},
			"bubblewrap", "", "512 MiB limit"},
	}
	for _, tt := range tests {
		row := sandboxRows([]ipc.Sandbox{tt.sb}, time.Now())[1]
		if row[3] != tt.wantBackend || row[4] != tt.wantMemory {
			t.Errorf("%s: list shows backend %q memory %q, want %q %q", tt.name, row[3], row[4], tt.wantBackend, tt.wantMemory)
		}
		var accel, after string
		detail := sandboxDetail(tt.sb, time.Now())
		for i, r := range detail {
			if r[0] == "Acceleration" {
				accel, after = r[1], detail[i-1][0]
			}
		}
		if accel != tt.wantAccel {
			t.Errorf("%s: inspect says acceleration %q, want %q", tt.name, accel, tt.wantAccel)
		}
		if accel != "" && after != "Backend" {
			t.Errorf("%s: acceleration follows %q, want it under Backend", tt.name, after)
		}
	}
}
