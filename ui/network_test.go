package ui

import (
	"testing"
	"time"

	"sandboxdesk/ipc"
)

func TestHostNetworkFlaggedInTheList(t *testing.T) {
	tests := []struct{ network, want string }{
		{"on", "w"},
		{"off", "w"},
		{"host", "w ⚠ host network"},
	}
	for _, tt := range tests {
		sb := ipc.Sandbox{Name: "w", State: ipc.StateRunning, Network: tt.network, CreatedAt: time.Now()}
		if got := rowCells(sb, ipc.Defaults{}, time.Now())[0]; got != tt.want {
			t.Errorf("network %s: name cell %q, want %q", tt.network, got, tt.want)
		}
	}
}
