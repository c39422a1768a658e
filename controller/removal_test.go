//go:build linux

package controller

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestHostileFoldersRemovedWhateverTheirModes: a sandbox that makes
// folders of its workspace or home unreadable (chmod 0) or read-only
// (chmod 500) cannot make rm fail and outlive it, and a link it planted
// is removed, never what it names. Root passes every mode, so as root the
// test runs itself again as nobody, the way a person's controller runs.
func TestHostileFoldersRemovedWhateverTheirModes(t *testing.T) {
	if os.Geteuid() == 0 && os.Getenv("SANDBOXDESK_TEST_UNPRIVILEGED") == "" {
		asNobody(t, "^TestHostileFoldersRemovedWhateverTheirModes$")
		return
	}
	base := t.TempDir()
	outside := filepath.Join(base, "outside")
	if err := os.Mkdir(outside, 0o750); err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(base, "workspace")
	for _, d := range []string{"a/b/c", "ro/sub", "closed/deep/er"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, d, "f"), []byte("x"), 0o400); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(ws, "ro", "link")); err != nil {
		t.Fatal(err)
	}
	for d, mode := range map[string]os.FileMode{"a/b/c": 0, "a/b": 0o500, "ro": 0o500, "closed/deep": 0, "closed": 0o100} {
		if err := os.Chmod(filepath.Join(ws, d), mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := removeTree(ws); err != nil {
		t.Fatalf("remove: %v", err)
	}
	if _, err := os.Lstat(ws); !os.IsNotExist(err) {
		t.Errorf("the folder is still there: %v", err)
	}
	if fi, err := os.Stat(outside); err != nil || fi.Mode().Perm() != 0o750 {
		t.Errorf("the folder a planted link named changed: %v %v", fi.Mode(), err)
	}
}

// asNobody runs the tests named by pattern in a copy of this test binary
// as user nobody.
func asNobody(t *testing.T, pattern string) {
	if _, err := exec.LookPath("setpriv"); err != nil {
		t.Skip("setpriv (util-linux) is not installed: cannot run as an ordinary user")
	}
	dir, err := os.MkdirTemp("", "sdctl")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	data, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "controller.test")
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--",
		bin, "-test.run="+pattern, "-test.v", "-test.count=1")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "SANDBOXDESK_TEST_UNPRIVILEGED=1", "HOME="+dir, "TMPDIR=/tmp")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("as an ordinary user: %v\n%s", err, out)
	}
	t.Logf("as an ordinary user:\n%s", out)
}
