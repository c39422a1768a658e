package controller

import (
	"sync"
	"testing"

	"sandboxdesk/backends"
	"sandboxdesk/backends/testvm"
	"sandboxdesk/ipc"
)

// TestLaunchRestoresWhatRan: two sandboxes running when the controller
// shuts down are running again after the next start, both marked starting
// before either boots, so they get equal shares; one the user stopped
// stays stopped.
func TestLaunchRestoresWhatRan(t *testing.T) {
	e := newEnv(t, withHost(16, 8))
	e.create(ipc.CreateRequest{Name: "a"})
	e.create(ipc.CreateRequest{Name: "b"})
	e.create(ipc.CreateRequest{Name: "quiet"})
	if _, err := e.c.Stop(t.Context(), ipc.Ref{Name: "quiet"}); err != nil {
		t.Fatal(err)
	}
	if err := e.c.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	e.reopen(testvm.Config{})
	if got := e.states(); got["a"] != ipc.StateStopped || got["b"] != ipc.StateStopped {
		t.Fatalf("after the restart, before restoring: %v", got)
	}
	e.assertStartOrder(t)
	if err := e.c.Restore(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := e.states(); got["a"] != ipc.StateRunning || got["b"] != ipc.StateRunning || got["quiet"] != ipc.StateStopped {
		t.Errorf("restored: %v, want a and b running, quiet (stopped by its user) stopped", got)
	}
	if a, b := e.reserved("a"), e.reserved("b"); a != 4096 || b != 4096 {
		t.Errorf("restored together on 16 GiB: %d and %d MiB, want 4096 each", a, b)
	}
	// a second start restores nothing more: the marks are spent
	e.vm.OnStart(func(s backends.Spec) { t.Errorf("a second restore started %s", s.Name) })
	if err := e.c.Restore(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// TestLaunchRestoresAfterACrash: a controller that died with sandboxes
// running, whose backend did not keep them, restores them too.
func TestLaunchRestoresAfterACrash(t *testing.T) {
	e := newEnv(t, withHost(16, 8))
	a := e.create(ipc.CreateRequest{Name: "a"})
	b := e.create(ipc.CreateRequest{Name: "b"})
	e.c.Close() // no Shutdown: it died
	// the host rebooted: the backend keeps nothing running
	for _, id := range []string{a.ID, b.ID} {
		if _, err := e.vm.Stop(t.Context(), id, 0); err != nil {
			t.Fatal(err)
		}
	}
	e.reopen(testvm.Config{})
	e.assertStartOrder(t)
	if err := e.c.Restore(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := e.states(); got["a"] != ipc.StateRunning || got["b"] != ipc.StateRunning {
		t.Errorf("after a crash: %v, want both running again", got)
	}
	if a, b := e.reserved("a"), e.reserved("b"); a != 4096 || b != 4096 {
		t.Errorf("restored together: %d and %d MiB, want 4096 each", a, b)
	}
}

// assertStartOrder makes the backend check, at each start, that both a
// and b are already marked starting (or running): none boots before all
// are marked.
func (e *env) assertStartOrder(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	e.vm.OnStart(func(s backends.Spec) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, s.Name)
		for _, n := range []string{"a", "b"} {
			sb, err := e.c.Inspect(t.Context(), ipc.Ref{Name: n})
			if err != nil || (sb.State != ipc.StateStarting && sb.State != ipc.StateRunning) {
				t.Errorf("%s boots while %s is %s (%v): not all were marked starting first", s.Name, n, sb.State, err)
			}
		}
	})
	t.Cleanup(func() {
		if len(seen) != 2 {
			t.Errorf("starts seen: %v, want a and b", seen)
		}
	})
}
