package bubblewrap

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sandboxdesk/backends"
)

// buildStaticAgent builds cmd/sandboxdesk-agent as make build does:
// CGO_ENABLED=0, a static binary.
func buildStaticAgent(t *testing.T) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not in PATH: cannot build the static agent")
	}
	out := filepath.Join(t.TempDir(), "sandboxdesk-agent")
	cmd := exec.Command(gobin, "build", "-o", out, "sandboxdesk/cmd/sandboxdesk-agent")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the static agent: %v\n%s", err, msg)
	}
	return out
}

// TestStaticAgentMountsNoHostLibraries: the agent make build ships needs
// no loader and no library, so its sandbox binds none of the host's.
func TestStaticAgentMountsNoHostLibraries(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bubblewrap is not installed (apt-get install bubblewrap)")
	}
	bin := buildStaticAgent(t)
	r := newRig(t)
	b, err := New(Config{Root: r.root, Agent: bin})
	if err != nil {
		t.Fatal(err)
	}
	if b.interp != "" || len(b.libs) != 0 {
		t.Fatalf("the static agent needs loader %q and libraries %v", b.interp, b.libs)
	}
	r.b = b
	s := r.spec("w")
	l := layout{Name: s.Name, ImageRoot: "/", HostImage: true, StateDir: s.StateDir, Workspace: s.Workspace, Agent: b.agent, Interp: b.interp, Libs: b.libs}
	if i := slices.IndexFunc(bwrapArgs(l, imageLayout{}), func(a string) bool { return strings.HasPrefix(a, agentDir+"/lib") }); i >= 0 {
		t.Fatalf("bwrap binds libraries for the static agent")
	}
	r.start(s, 512)
	if code, out := r.sh(s.ID, "echo up"); code != 0 || out != "up\n" {
		t.Fatalf("a command through the static agent: %d %q", code, out)
	}
	code, err := b.Exec(t.Context(), s.ID, backends.ExecRequest{Args: []string{"true"}})
	if err != nil || code != 0 {
		t.Fatalf("exec true: %d %v", code, err)
	}
}
