package autostart

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestXDGAutostartForReal writes the entry where a desktop session looks
// for it ($XDG_CONFIG_HOME/autostart), has desktop-file-validate read it,
// and removes it.
func TestXDGAutostartForReal(t *testing.T) {
	config := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", config)
	l := Login{Name: "sandboxdesk", Exec: "/opt/sandboxdesk 1.0/sandboxdesk-app"}
	path := filepath.Join(config, "autostart", "sandboxdesk.desktop")

	if on, err := l.Enabled(); err != nil || on {
		t.Fatalf("before Enable: on=%v err=%v", on, err)
	}
	if err := l.Enable(); err != nil {
		t.Fatal(err)
	}
	if on, err := l.Enabled(); err != nil || !on {
		t.Fatalf("after Enable: on=%v err=%v", on, err)
	}
	if v, err := exec.LookPath("desktop-file-validate"); err != nil {
		t.Log("desktop-file-validate is not installed (desktop-file-utils): the entry is not validated")
	} else if out, err := exec.Command(v, path).CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("desktop-file-validate %s: %v\n%s", path, err, out)
	}
	if err := l.Enable(); err != nil { // again, over the first
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(config, "autostart", ".*")); len(left) > 0 {
		t.Errorf("Enable left %v", left)
	}

	if err := l.Disable(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("after Disable the entry is still there: %v", err)
	}
	if on, err := l.Enabled(); err != nil || on {
		t.Errorf("after Disable: on=%v err=%v", on, err)
	}
	if err := l.Disable(); err != nil {
		t.Errorf("Disable of an entry already gone: %v", err)
	}
}

// TestXDGAutostartFolder: $XDG_CONFIG_HOME when it is absolute, else
// ~/.config, as the Base Directory Specification says; Dir beats both.
func TestXDGAutostartFolder(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, tc := range []struct{ name, config, dir, want string }{
		{"XDG_CONFIG_HOME set", "/xdg/config", "", "/xdg/config/autostart/sandboxdesk.desktop"},
		{"XDG_CONFIG_HOME unset", "", "", filepath.Join(home, ".config/autostart/sandboxdesk.desktop")},
		{"XDG_CONFIG_HOME relative is ignored", "config", "", filepath.Join(home, ".config/autostart/sandboxdesk.desktop")},
		{"Dir set", "/xdg/config", "/tests/here", "/tests/here/sandboxdesk.desktop"},
	} {
		t.Setenv("XDG_CONFIG_HOME", tc.config)
		got, err := Login{Name: "sandboxdesk", Exec: "/usr/bin/sandboxdesk-app", Dir: tc.dir}.path()
		if err != nil || got != tc.want {
			t.Errorf("%s: %q %v, want %q", tc.name, got, err, tc.want)
		}
	}
}
