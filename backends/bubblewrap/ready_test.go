package bubblewrap

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
	s := r.spec("w")
	s.MemoryMiB = 512
	_, err = r.b.Start(t.Context(), s)
	if err == nil || !strings.Contains(err.Error(), "bwrap exited at start") || !strings.Contains(err.Error(), "planted failure") {
		t.Fatalf("start with a failing bwrap: %v", err)
	}
}

// TestAgentArgsNameReadiness: the agent is told where to say it is up.
func TestAgentArgsNameReadiness(t *testing.T) {
	a := bwrapArgs(layout{Name: "w", ImageRoot: "/", HostImage: true, Agent: "/a", AgentFD: 4, ReadyFD: 5, StateDir: "/s", Workspace: "/w"}, imageLayout{})
	if got := strings.Join(a[len(a)-3:], " "); got != "__sandboxdesk_agent fd:4 ready:5" {
		t.Errorf("agent arguments: %q", got)
	}
}
