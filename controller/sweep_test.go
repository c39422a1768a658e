package controller

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sandboxdesk/backends"
	"sandboxdesk/backends/testvm"
	"sandboxdesk/ipc"
)

func (e *env) state(name string) ipc.State {
	e.t.Helper()
	sb, err := e.c.Inspect(e.t.Context(), ipc.Ref{Name: name})
	if err != nil {
		e.t.Fatal(err)
	}
	return sb.State
}

func TestSweepStopsIdleAndExpired(t *testing.T) {
	e := newEnv(t, withHost(64, 16))
	e.create(ipc.CreateRequest{Name: "idle", IdleTimeoutMs: msOf(time.Minute)})
	e.create(ipc.CreateRequest{Name: "mortal", MaxLifetimeMs: msOf(time.Hour)})
	e.create(ipc.CreateRequest{Name: "forever"})

	e.clock.Advance(59 * time.Second)
	e.c.Sweep(t.Context())
	if e.state("idle") != ipc.StateRunning {
		t.Fatal("stopped after 59s of a 1m idle timeout")
	}
	// a command keeps it in use, and resets its idle clock
	if _, err := e.c.Exec(t.Context(), ipc.Ref{Name: "idle"}, backends.ExecRequest{Args: []string{"true"}}); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(59 * time.Second)
	e.c.Sweep(t.Context())
	if e.state("idle") != ipc.StateRunning {
		t.Fatal("stopped 59s after its last command")
	}
	e.clock.Advance(time.Second)
	e.c.Sweep(t.Context())
	if e.state("idle") != ipc.StateStopped {
		t.Errorf("idle for 1m: %s, want stopped", e.state("idle"))
	}
	if e.state("mortal") != ipc.StateRunning {
		t.Fatal("mortal stopped before its lifetime")
	}
	e.clock.Advance(time.Hour)
	e.c.Sweep(t.Context())
	if e.state("mortal") != ipc.StateStopped {
		t.Errorf("alive past 1h max lifetime: %s", e.state("mortal"))
	}
	if e.state("forever") != ipc.StateRunning {
		t.Error("a sandbox with no ceilings was swept")
	}
	events, _ := e.c.store.recentEvents(t.Context(), "idle", 10)
	if last := events[len(events)-1]; !strings.Contains(last.Message, "idle for") {
		t.Errorf("last event of idle: %+v", last)
	}
}

func TestEventsTellStateFromTicks(t *testing.T) {
	e := newEnv(t)
	events, stop := e.c.Subscribe()
	e.create(ipc.CreateRequest{Name: "w"})
	e.c.Progress("w", 0.5, "downloading image")
	e.c.Stop(t.Context(), ipc.Ref{Name: "w"})
	e.c.Remove(t.Context(), ipc.Ref{Name: "w"})
	var got []string
	for len(got) < 9 {
		ev := <-events
		got = append(got, string(ev.Kind)+":"+string(ev.State))
	}
	stop()
	// a start ticks too: its progress bar shows "starting" until it runs
	want := "state:stopped state:starting progress: progress: state:running progress: state:stopping state:stopped state:"
	if strings.Join(got, " ") != want {
		t.Errorf("events\n got %s\nwant %s", strings.Join(got, " "), want)
	}
}

func TestRetentionDropsOldestCheckpoint(t *testing.T) {
	e := openEnv(t, testvm.Config{Checkpoints: true})
	if _, err := e.c.SetLimits(t.Context(), intp(2), intp(2)); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a", "b", "c"} {
		e.create(ipc.CreateRequest{Name: n})
		e.writeWorkspace(n, "keep.txt", n)
		e.clock.Advance(time.Second)
		if sb, err := e.c.Stop(t.Context(), ipc.Ref{Name: n}); err != nil || sb.State != ipc.StateSuspended {
			t.Fatalf("stop %s: %+v, %v; want suspended", n, sb, err)
		}
	}
	if e.state("a") != ipc.StateStopped || e.state("b") != ipc.StateSuspended || e.state("c") != ipc.StateSuspended {
		t.Errorf("states a=%s b=%s c=%s; want the oldest checkpoint (a) dropped", e.state("a"), e.state("b"), e.state("c"))
	}
	a, _ := e.c.Inspect(t.Context(), ipc.Ref{Name: "a"})
	if e.vm.HasCheckpoint(a.ID) {
		t.Error("the backend still holds a's checkpoint")
	}
	for _, n := range []string{"a", "b", "c"} {
		if got, ok := e.readWorkspace(n, "keep.txt"); !ok || got != n {
			t.Errorf("retention touched %s's workspace", n)
		}
	}
}

func TestRemoveDoesNotFollowSymlinks(t *testing.T) {
	e := newEnv(t)
	outside := filepath.Join(t.TempDir(), "host-secret.txt")
	os.WriteFile(outside, []byte("host data"), 0o600)
	outsideDir := t.TempDir()
	os.WriteFile(filepath.Join(outsideDir, "file"), []byte("x"), 0o600)
	e.create(ipc.CreateRequest{Name: "w"})
	ws := e.c.workspace("w")
	os.Symlink(outside, filepath.Join(ws, "link-to-file"))
	os.Symlink(outsideDir, filepath.Join(ws, "link-to-dir"))
	if removed, err := e.c.Remove(t.Context(), ipc.Ref{Name: "w"}); err != nil || !removed {
		t.Fatalf("remove: %v, %v", removed, err)
	}
	if b, err := os.ReadFile(outside); err != nil || string(b) != "host data" {
		t.Error("remove followed a symlink to a host file")
	}
	if _, err := os.Stat(filepath.Join(outsideDir, "file")); err != nil {
		t.Error("remove followed a symlink into a host folder")
	}
	if e.workspaceExists("w") {
		t.Error("workspace still there")
	}
	if removed, err := e.c.Remove(t.Context(), ipc.Ref{Name: "w"}); err != nil || removed {
		t.Errorf("second remove: %v, %v; want false, nil", removed, err)
	}
}

func TestExec(t *testing.T) {
	e := newEnv(t)
	e.create(ipc.CreateRequest{Name: "w"})
	var out bytes.Buffer
	code, err := e.c.Exec(t.Context(), ipc.Ref{Name: "w"}, backends.ExecRequest{Args: []string{"sh", "-c", "pwd; exit 7"}, Stdout: &out})
	if err != nil || code != 7 {
		t.Fatalf("exec: %d, %v", code, err)
	}
	if strings.TrimSpace(out.String()) != e.c.workspace("w") {
		t.Errorf("exec ran in %q", out.String())
	}
	e.c.Stop(t.Context(), ipc.Ref{Name: "w"})
	if _, err := e.c.Exec(t.Context(), ipc.Ref{Name: "w"}, backends.ExecRequest{Args: []string{"true"}}); err == nil || !strings.Contains(err.Error(), "is stopped") {
		t.Errorf("exec in a stopped sandbox: %v", err)
	}
	if _, err := e.c.Exec(t.Context(), ipc.Ref{Name: "nope"}, backends.ExecRequest{Args: []string{"true"}}); err == nil {
		t.Error("exec in a missing sandbox succeeded")
	}
}

func TestShutdownStopsEverything(t *testing.T) {
	e := newEnv(t)
	a := e.create(ipc.CreateRequest{Name: "a"})
	if err := e.c.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	if e.vm.Reserved(a.ID) != 0 {
		t.Error("a still runs after shutdown")
	}
}
