package bubblewrap

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sandboxdesk/backends"
)

// TestFailedStartReportsBwrapLog: a bwrap that gives up before the agent
// runs ends the readiness pipe, and Start says what bwrap said.
func TestFailedStartReportsBwrapLog(t *testing.T) {
	real, err := exec.LookPath("bwrap")
	if err != nil {
		t.Skip("bubblewrap is not installed (apt-get install bubblewrap)")
	}
	r := newRig(t)
	// the host check passes through; the sandbox's own run fails
	// where the sandbox's host user may run it
	dir, err := os.MkdirTemp("", "fakebwrap")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	fake := filepath.Join(dir, "bwrap")
	script := "#!/bin/sh\ncase \"$*\" in *__sandboxdesk_agent*) echo 'bwrap: Can not mount planted failure' >&2; exit 1;; esac\nexec " + real + " \"$@\"\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	r.b.bwrap = fake
	// off: the agent's readiness pipe ends; on: bwrap never reports to
	// the NAT. Either way the error carries what bwrap said.
	for _, n := range []backends.Network{backends.NetworkOff, backends.NetworkOn} {
		s := r.spec("w")
		s.MemoryMiB, s.Network = 512, n
		_, err = r.b.Start(t.Context(), s)
		if err == nil || !strings.Contains(err.Error(), "planted failure") {
			t.Fatalf("start with a failing bwrap, network %s: %v", n, err)
		}
	}
}

// TestAgentArgsNameReadiness: the agent is told where to say it is up.
func TestAgentArgsNameReadiness(t *testing.T) {
	a := bwrapArgs(layout{Name: "w", ImageRoot: "/", HostImage: true, Agent: "/a", AgentFD: 4, ReadyFD: 5, StateDir: "/s", Workspace: "/w"}, imageLayout{})
	if got := strings.Join(a[len(a)-3:], " "); got != "__sandboxdesk_agent fd:4 ready:5" {
		t.Errorf("agent arguments: %q", got)
	}
}
