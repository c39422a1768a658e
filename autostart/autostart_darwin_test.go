package autostart

import (
	"os"
	"path/filepath"
	"testing"
)

func TestLaunchAgentEnableDisable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "LaunchAgents")
	l := Login{Name: "sandboxdesk", Exec: "/Applications/sandboxdesk.app/Contents/MacOS/sandboxdesk-app", Dir: dir}
	if on, err := l.Enabled(); err != nil || on {
		t.Fatalf("before Enable: Enabled() = %v, %v", on, err)
	}
	if err := l.Enable(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "sandboxdesk.plist"))
	if err != nil {
		t.Fatal(err)
	}
	if label, exe, err := readLaunchAgent(data); err != nil || label != l.Name || exe != l.Exec {
		t.Errorf("the agent written reads as %q %q %v", label, exe, err)
	}
	if on, err := l.Enabled(); err != nil || !on {
		t.Errorf("after Enable: Enabled() = %v, %v", on, err)
	}
	for range 2 { // the second finds nothing to remove, and says nothing
		if err := l.Disable(); err != nil {
			t.Fatal(err)
		}
	}
	if on, err := l.Enabled(); err != nil || on {
		t.Errorf("after Disable: Enabled() = %v, %v", on, err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("left in the folder: %v", left)
	}
}
