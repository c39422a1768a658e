package controller

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// TestNetworkInSandboxJSON: sandbox.json, read to rebuild a lost
// database, keeps the setting, reads the true/false of files written
// before "host" existed, and refuses anything else.
func TestNetworkInSandboxJSON(t *testing.T) {
	tests := []struct {
		written string // the JSON value in the file
		want    backends.Network
		ok      bool
	}{
		{`"on"`, backends.NetworkOn, true},
		{`"off"`, backends.NetworkOff, true},
		{`"host"`, backends.NetworkHost, true},
		{`true`, backends.NetworkOn, true},
		{`false`, backends.NetworkOff, true},
		{`"bridge"`, "", false},
		{`""`, "", false},
		{`7`, "", false},
	}
	const id = "sb-0123456789abcdef"
	for _, tt := range tests {
		dir := t.TempDir()
		r := &record{ID: id, Prefix: "", Name: "w", Backend: "vm", Image: "base", ImageDigest: "sha256:a",
			Network: backends.NetworkHost, CreatedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
		if err := writeMeta(dir, r); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, metaFile)
		b, _ := os.ReadFile(path)
		b = []byte(strings.Replace(string(b), `"network": "host"`, `"network": `+tt.written, 1))
		os.WriteFile(path, b, 0o600)
		got, err := readMeta(dir, id)
		if (err == nil) != tt.ok || got.Network != tt.want {
			t.Errorf("network %s in sandbox.json: read %q, %v; want %q", tt.written, got.Network, err, tt.want)
		}
	}
}
