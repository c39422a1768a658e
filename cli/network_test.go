package cli

import (
	"testing"
	"time"

	"sandboxdesk/ipc"
)

func TestInspectShowsTheNetwork(t *testing.T) {
	tests := []struct{ network, want string }{
		{"on", "on (outbound only)"},
		{"off", "off"},
		{"host", "host (shares the host's network, loopback services included)"},
	}
	for _, tt := range tests {
		var got string
		for _, row := range sandboxDetail(ipc.Sandbox{Name: "w", Network: tt.network}, time.Now()) {
			if row[0] == "Network" {
				got = row[1]
			}
		}
		if got != tt.want {
			t.Errorf("network %s: inspect says %q, want %q", tt.network, got, tt.want)
		}
	}
}
