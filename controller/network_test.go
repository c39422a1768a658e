package controller

import (
	"testing"

	"sandboxdesk/backends"
	"sandboxdesk/backends/testvm"
	"sandboxdesk/ipc"
)

func TestNetworkSettingSurvivesRestart(t *testing.T) {
	e := newEnv(t)
	tests := []struct{ name, asked, want string }{
		{"default", "", "on"},
		{"outbound", "on", "on"},
		{"isolated", "off", "off"},
		{"shared", "host", "host"},
	}
	for _, tt := range tests {
		if sb := e.create(ipc.CreateRequest{Name: tt.name, Network: tt.asked}); sb.Network != tt.want {
			t.Errorf("%s: created with network %q, want %q", tt.name, sb.Network, tt.want)
		}
		// stopped, so the next one has a slot
		if _, err := e.c.Stop(t.Context(), ipc.Ref{Name: tt.name}); err != nil {
			t.Fatal(err)
		}
	}
	e.c.Close()
	again := openEnv(t, testvm.Config{}, withRoot(e.root))
	for _, tt := range tests {
		sb, err := again.c.Inspect(t.Context(), ipc.Ref{Name: tt.name})
		if err != nil || sb.Network != tt.want {
			t.Errorf("%s after a restart: network %q, %v; want %q", tt.name, sb.Network, err, tt.want)
		}
	}
	if _, err := again.c.Create(t.Context(), ipc.CreateRequest{Name: "x", Network: "bridge"}); err == nil {
		t.Error("network \"bridge\" accepted")
	}
}

// TestNetworkColumn: rows written when the column held a yes/no still read
// as they did (0 off, 1 on), so no migration is needed for "host".
func TestNetworkColumn(t *testing.T) {
	tests := []struct {
		code int64
		want backends.Network
		ok   bool
	}{
		{0, backends.NetworkOff, true},
		{1, backends.NetworkOn, true},
		{2, backends.NetworkHost, true},
		{3, "", false},
		{-1, "", false},
	}
	for _, tt := range tests {
		got, err := networkOf(tt.code)
		if got != tt.want || (err == nil) != tt.ok {
			t.Errorf("networkOf(%d) = %q, %v; want %q", tt.code, got, err, tt.want)
		}
		if tt.ok && networkCode(got) != tt.code {
			t.Errorf("networkCode(%q) = %d, want %d", got, networkCode(got), tt.code)
		}
	}
}
