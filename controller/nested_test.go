package controller

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"sandboxdesk/backends"
	"sandboxdesk/backends/testvm"
	"sandboxdesk/ipc"
)

// TestNestedUsernsIsPartOfTheShape: nested user namespaces are an identity
// like the network: the same setting reuses the sandbox, the other one
// rebuilds it (saying why), the backend is told, and a restart keeps it.
func TestNestedUsernsIsPartOfTheShape(t *testing.T) {
	e := newEnv(t)
	var mu sync.Mutex
	var told []bool
	e.vm.OnStart(func(s backends.Spec) { mu.Lock(); told = append(told, s.NestedUserns); mu.Unlock() })

	plain := e.create(ipc.CreateRequest{Name: "w"})
	if plain.NestedUserns {
		t.Fatal("a default create allows nested user namespaces")
	}
	steps := []struct {
		asked, reused bool
		why           string // in the rebuild's event
	}{
		{asked: false, reused: true},
		{asked: true, reused: false, why: "nested user namespaces off, asked on"},
		{asked: true, reused: true},
		{asked: false, reused: false, why: "nested user namespaces on, asked off"},
	}
	prev := plain
	for _, st := range steps {
		sb := e.create(ipc.CreateRequest{Name: "w", NestedUserns: st.asked})
		if sb.NestedUserns != st.asked {
			t.Errorf("asked %v: sandbox says %v", st.asked, sb.NestedUserns)
		}
		if (sb.ID == prev.ID) != st.reused {
			t.Errorf("%v then asked %v: reused %v, want %v", prev.NestedUserns, st.asked, sb.ID == prev.ID, st.reused)
		}
		if st.why != "" {
			events, _ := e.c.store.recentEvents(t.Context(), "w", 10)
			found := false
			for _, ev := range events {
				found = found || strings.Contains(ev.Message, st.why)
			}
			if !found {
				t.Errorf("rebuild for %v: no event says %q in %+v", st.asked, st.why, events)
			}
		}
		prev = sb
	}
	mu.Lock()
	if want := []bool{false, true, false}; !equalBools(told, want) {
		t.Errorf("the backend was told nested user namespaces %v, want %v", told, want)
	}
	mu.Unlock()

	// across a restart, on and off both stay what they were
	e.create(ipc.CreateRequest{Name: "on", NestedUserns: true})
	for _, name := range []string{"w", "on"} {
		if _, err := e.c.Stop(t.Context(), ipc.Ref{Name: name}); err != nil {
			t.Fatal(err)
		}
	}
	on, _ := e.c.Inspect(t.Context(), ipc.Ref{Name: "on"})
	e.c.Close()
	again := openEnv(t, testvm.Config{}, withRoot(e.root))
	for name, want := range map[string]bool{"w": false, "on": true} {
		sb, err := again.c.Inspect(t.Context(), ipc.Ref{Name: name})
		if err != nil || sb.NestedUserns != want {
			t.Errorf("%s after a restart: nested user namespaces %v, %v; want %v", name, sb.NestedUserns, err, want)
		}
	}
	if sb := again.create(ipc.CreateRequest{Name: "on", NestedUserns: true}); sb.ID != on.ID {
		t.Errorf("after a restart, asked on again: rebuilt (%s -> %s), want reused", on.ID, sb.ID)
	}
}

func equalBools(a, b []bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestNestedUsernsInSandboxJSON: sandbox.json, read to rebuild a lost
// database, keeps the setting; a file written before it existed reads off.
func TestNestedUsernsInSandboxJSON(t *testing.T) {
	const id = "sb-0123456789abcdef"
	tests := []struct {
		name string
		set  bool
		drop bool // remove the field, as an older sandboxdesk wrote it
		want bool
	}{
		{"on", true, false, true},
		{"off", false, false, false},
		{"older file", true, true, false},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		r := &record{ID: id, Name: "w", Backend: "vm", Image: "base", ImageDigest: "sha256:a",
			Network: backends.NetworkOn, NestedUserns: tt.set, CreatedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
		if err := writeMeta(dir, r); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, metaFile)
		b, _ := os.ReadFile(path)
		if tt.drop {
			b = []byte(strings.Replace(string(b), `,
  "nestedUserns": true`, "", 1))
			if strings.Contains(string(b), "nestedUserns") {
				t.Fatalf("%s: could not drop the field from %s", tt.name, b)
			}
		}
		os.WriteFile(path, b, 0o600)
		got, err := readMeta(dir, id)
		if err != nil || got.NestedUserns != tt.want {
			t.Errorf("%s: read nested user namespaces %v, %v; want %v", tt.name, got.NestedUserns, err, tt.want)
		}
	}
}
