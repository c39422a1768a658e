//go:build linux

package bubblewrap

import (
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHostileAgentSocketSwap: a sandbox that replaces every agent socket
// it can reach with a link to another sandbox's socket, or to a socket
// like the controller's own, must not steer the controller's next exec:
// it still runs in the sandbox it was meant for.
func TestHostileAgentSocketSwap(t *testing.T) {
	r := newRig(t)
	a, b := r.spec("box-a"), r.spec("box-b")
	r.start(a, 256)
	r.start(b, 256)

	// a stand-in for control.sock: it must never be dialled
	decoy := filepath.Join(r.root, "decoy.sock")
	l, err := net.Listen("unix", decoy)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	dialled := make(chan struct{}, 1)
	go func() {
		if c, err := l.Accept(); err == nil {
			dialled <- struct{}{}
			c.Close()
		}
	}()

	// every place an agent socket was or is, in either sandbox's folders
	bSockets := []string{
		filepath.Join(r.b.ctlDir(b.ID), agentSockName),
		filepath.Join(b.StateDir, "run", "agent.sock"),
	}
	for _, target := range append(bSockets, decoy) {
		// from inside: the sandbox's own writable folders, where an agent
		// socket could sit, become links
		script := `for d in /run/sandboxdesk /tmp /home/sandbox /workspace; do
			mkdir -p $d 2>/dev/null; rm -rf $d/agent.sock; ln -s "$1" $d/agent.sock 2>/dev/null; done; true`
		if code, out := r.sh(a.ID, strings.Replace(script, `"$1"`, "'"+target+"'", 1)); code != 0 {
			t.Fatalf("plant links: %d %s", code, out)
		}
		// from the host user the sandbox runs as, who owns its folder
		for _, p := range []string{filepath.Join(a.StateDir, "run", "agent.sock"), filepath.Join(a.StateDir, "ctl")} {
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.RemoveAll(p)
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
		}
		code, out := r.sh(a.ID, "hostname")
		if code != 0 || out != "box-a\n" {
			t.Fatalf("with the sandbox's sockets pointing at %s, an exec in box-a gave %d %q; want box-a", target, code, out)
		}
	}
	select {
	case <-dialled:
		t.Fatal("the controller dialled a socket the sandbox pointed it at")
	default:
	}
}

// TestHostileAgentNotAttachable: a process of the sandbox runs as the
// agent's user, but may not reach into the agent (its descriptors, its
// memory) to take the socket the controller calls it on.
func TestHostileAgentNotAttachable(t *testing.T) {
	r := newRig(t)
	s := r.spec("w")
	r.start(s, 256)
	// pid 1 is bwrap's init, which keeps no socket; the agent is its child
	script := `pid=$(pgrep -f "__sandboxdesk[_]agent" | grep -vx 1 | head -n1); [ -n "$pid" ] || { echo "no agent found"; exit 3; }
		if ls /proc/$pid/fd/ >/dev/null 2>&1; then echo "agent's descriptors readable"; exit 1; fi
		if cat /proc/$pid/environ >/dev/null 2>&1; then echo "agent's environment readable"; exit 1; fi
		if ls -l /proc/1/fd/ | grep -q socket; then echo "init holds a socket"; exit 1; fi
		echo protected`
	if code, out := r.sh(s.ID, script); code != 0 || out != "protected\n" {
		t.Fatalf("a sandbox process reached into the agent: %d %q", code, out)
	}
	if code, out := r.sh(s.ID, "ls /proc/self/fd >/dev/null && echo ok"); code != 0 || out != "ok\n" {
		t.Fatalf("the commands the agent starts lost their own /proc: %d %q", code, out)
	}
}

// TestLegacySandboxEnded: a sandbox an earlier version started (its pid
// file in its own folder, its agent on a path the sandbox can replace)
// cannot be reached safely, so Observe ends it rather than leave it
// running unlisted beside a new tree.
func TestLegacySandboxEnded(t *testing.T) {
	r := newRig(t)
	s := r.spec("old")
	// a stand-in for its bwrap: marked with its folder, as bwrap's
	// command line is
	old := exec.Command("sh", "-c", "sleep 300", filepath.Join(s.StateDir, "home")+"/")
	if err := old.Start(); err != nil {
		t.Fatal(err)
	}
	defer old.Process.Kill()
	exited := make(chan struct{})
	go func() { old.Wait(); close(exited) }()
	st, _ := startTime(old.Process.Pid)
	b, _ := json.Marshal(pidFile{Pid: old.Process.Pid, StartTime: st})
	if err := os.WriteFile(filepath.Join(s.StateDir, pidFileName), b, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := r.b.Observe(t.Context()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(time.Minute):
		t.Fatal("the sandbox an earlier version started still runs")
	}
	if _, err := os.Stat(filepath.Join(s.StateDir, pidFileName)); !os.IsNotExist(err) {
		t.Errorf("its pid file is still there: %v", err)
	}
}
