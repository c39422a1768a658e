//go:build linux

package bubblewrap

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"sandboxdesk/backends"
	"sandboxdesk/controller"
	"sandboxdesk/ipc"
)

// TestDeadSandboxSeenStopped: when a sandbox's processes all die under
// it, whether from inside (kill -9 -1 as the sandbox user) or from the
// host (its bwrap killed), the controller marks it stopped with the
// reason and gives its slot to the start waiting in the queue; for a
// sandbox adopted from an earlier controller too.
func TestDeadSandboxSeenStopped(t *testing.T) {
	kills := []struct {
		name string
		kill func(t *testing.T, c *controller.Controller, ctl string)
	}{
		{"kill -9 -1 inside", func(t *testing.T, c *controller.Controller, _ string) {
			// the exec dies with everything else; its result does not matter
			c.Exec(t.Context(), ipc.Ref{Name: "w"}, backends.ExecRequest{Args: []string{"sh", "-c", "kill -9 -1"}})
		}},
		{"bwrap killed from the host", func(t *testing.T, _ *controller.Controller, ctl string) {
			p, ok := readPidFile(ctl)
			if !ok {
				t.Fatal("no pid file for a running sandbox")
			}
			if err := syscall.Kill(p.Pid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, k := range kills {
		for _, adopted := range []bool{false, true} {
			name := k.name
			if adopted {
				name += ", adopted"
			}
			t.Run(name, func(t *testing.T) {
				var c *controller.Controller
				var root string
				if adopted {
					// started by a controller process that is gone: the
					// new one did not start it and cannot wait for it
					newRig(t) // skips where bwrap is missing
					root = t.TempDir()
					childControllerKilled(t, root)
					var err error
					if c, err = openController(t.Context(), root); err != nil {
						t.Fatal(err)
					}
					t.Cleanup(func() { c.Shutdown(context.Background()) })
				} else {
					c, root = newController(t)
					if _, err := c.Create(t.Context(), ipc.CreateRequest{Name: "w", MemoryMiB: ptr(int64(256))}); err != nil {
						t.Fatal(err)
					}
				}
				one := 1
				if _, err := c.SetLimits(t.Context(), &one, nil); err != nil {
					t.Fatal(err)
				}
				first, err := c.Inspect(t.Context(), ipc.Ref{Name: "w"})
				if err != nil || first.State != ipc.StateRunning {
					t.Fatalf("w before the kill: %s, %v", first.State, err)
				}
				events, stop := c.Subscribe()
				defer stop()
				queued := make(chan error, 1)
				go func() {
					_, err := c.Create(t.Context(), ipc.CreateRequest{Name: "second", MemoryMiB: ptr(int64(256))})
					queued <- err
				}()
				waitFor(t, events, "second queued", func(e ipc.Event) bool { return e.Sandbox == "second" && e.State == ipc.StateQueued })

				k.kill(t, c, filepath.Join(root, controlFolder, first.ID))
				waitFor(t, events, "w stopped", func(e ipc.Event) bool { return e.Sandbox == "w" && e.State == ipc.StateStopped })
				sb, err := c.Inspect(t.Context(), ipc.Ref{Name: "w"})
				if err != nil || sb.State != ipc.StateStopped || !strings.HasPrefix(sb.Error, "stopped: ") {
					t.Errorf("the dead sandbox reads %s with reason %q (%v); want stopped with a reason", sb.State, sb.Error, err)
				}
				t.Logf("reason: %s", sb.Error)
				settled(t, 0, func() string {
					if left := rootProcesses(root)[first.ID]; len(left) > 0 {
						return fmt.Sprintf("the dead sandbox left processes %v", left)
					}
					return ""
				})
				select {
				case err := <-queued:
					if err != nil {
						t.Fatalf("the queued start: %v", err)
					}
				case <-time.After(time.Minute):
					t.Fatal("the queued start was not admitted after w died")
				}
				if sb, err := c.Inspect(t.Context(), ipc.Ref{Name: "second"}); err != nil || sb.State != ipc.StateRunning {
					t.Errorf("second: %s, %v; want running", sb.State, err)
				}
			})
		}
	}
}

// waitFor reads events until one matches, or fails after a generous
// minute: this is not a measure of speed.
func waitFor(t *testing.T, events <-chan ipc.Event, what string, match func(ipc.Event) bool) ipc.Event {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		select {
		case e, ok := <-events:
			if !ok {
				t.Fatalf("events ended before %s", what)
			}
			if match(e) {
				return e
			}
		case <-deadline:
			t.Fatalf("no event for %s", what)
		}
	}
}
