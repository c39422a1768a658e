package ui

import (
	"testing"

	"sandboxdesk/ipc"
)

func TestStateText(t *testing.T) {
	tests := []struct {
		name string
		sb   ipc.Sandbox
		want string
	}{
		{"running", ipc.Sandbox{State: ipc.StateRunning}, "● running"},
		{"queued second", ipc.Sandbox{State: ipc.StateQueued, QueuePosition: 2}, "◔ queued #2"},
		{"running after an OOM kill", ipc.Sandbox{State: ipc.StateRunning, OOMKills: 1}, "● running · limit hit"},
		{"stopped after refused forks", ipc.Sandbox{State: ipc.StateStopped, PidsLimitHits: 40}, "○ stopped · limit hit"},
	}
	for _, tt := range tests {
		if got := stateText(tt.sb); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
