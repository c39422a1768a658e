package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestCommandLineLinksNoGraphics: the command line and the controller
// without a window (serve) start without Fyne or GL, and the agent is a
// plain Go program.
func TestCommandLineLinksNoGraphics(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not in PATH: cannot list dependencies")
	}
	for _, pkg := range []string{"sandboxdesk/cmd/sandboxdesk", "sandboxdesk/cmd/sandboxdesk-serve", "sandboxdesk/cmd/sandboxdesk-agent"} {
		out, err := exec.Command(gobin, "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			if strings.HasPrefix(dep, "fyne.io/") || strings.HasPrefix(dep, "github.com/go-gl/") {
				t.Errorf("%s links %s", pkg, dep)
			}
		}
	}
}

func TestWantsAppArgsOpenTheApp(t *testing.T) {
	if _, err := appPath(); err == nil {
		t.Skip("a sandboxdesk-app lies beside the test binary")
	}
	err := openApp(nil)
	if err == nil || !strings.Contains(err.Error(), "the desktop app sandboxdesk-app") || !strings.Contains(err.Error(), "is not beside this command in") {
		t.Fatalf("no app beside: %v", err)
	}
}

func TestServeWithoutTheControllerProgram(t *testing.T) {
	if _, err := servePath(); err == nil {
		t.Skip("a sandboxdesk-serve lies beside the test binary")
	}
	err := serve(t.Context(), t.TempDir(), nil)
	if err == nil || !strings.Contains(err.Error(), "the controller program sandboxdesk-serve") || !strings.Contains(err.Error(), "is not beside this command in") {
		t.Fatalf("no controller program beside: %v", err)
	}
}
