//go:build linux

package bubblewrap

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// setIDProbe tries every way a process has to give a file a setuid or
// setgid bit, in the folder given, and says which worked.
const setIDProbe = `
import os, stat, sys
d = sys.argv[1]
src = open("/bin/sh", "rb").read()
def attempt(name, f):
    try:
        f(os.path.join(d, name))
        print(name, "made")
    except OSError as e:
        print(name, e.errno)
def chmod(p):
    open(p, "wb").write(src); os.chmod(p, 0o4755)
def fchmod(p):
    with open(p, "wb") as f:
        f.write(src); os.fchmod(f.fileno(), 0o2755)
def create(p):
    os.close(os.open(p, os.O_CREAT | os.O_WRONLY, 0o6755))
def mknod(p):
    os.mknod(p, stat.S_IFREG | 0o4755)
def tmpfile(p):
    fd = os.open(d, os.O_TMPFILE | os.O_WRONLY, 0o4755)
    os.link("/proc/self/fd/%d" % fd, p)
for name, f in [("chmod", chmod), ("fchmod", fchmod), ("create", create), ("mknod", mknod), ("tmpfile", tmpfile)]:
    attempt(name, f)
`

// TestHostileNoSetIDFilesOnTheHost: what a sandbox writes in its
// workspace is the workspace's person's on the host (root's, when root
// runs the app without sudo), and what it writes in its home and /tmp is
// its host uid's. A setuid or setgid binary made there would run as them
// for whoever reaches it, so no way of making one works inside, while
// ordinary modes still do.
func TestHostileNoSetIDFilesOnTheHost(t *testing.T) {
	r := newRig(t)
	s := r.spec("setid")
	r.start(s, 256)
	if code, out := r.sh(s.ID, `cp /bin/sh /workspace/sh && chmod 4755 /workspace/sh; chmod 2755 /workspace/sh; chmod u+s,g+s /workspace/sh; mkdir /workspace/d && chmod 2755 /workspace/d; chmod 755 /workspace/sh && echo plain chmod works`); !strings.Contains(out, "plain chmod works") {
		t.Fatalf("an ordinary chmod failed inside (%d): %s", code, out)
	}
	if code, _ := r.sh(s.ID, "command -v python3"); code == 0 {
		for _, dir := range []string{workspaceDir, homeDir, "/tmp"} {
			code, out := r.run(s.ID, "python3", "-c", setIDProbe, dir)
			if code != 0 {
				t.Fatalf("the probe failed in %s: %d\n%s", dir, code, out)
			}
			if strings.Contains(out, "made") {
				t.Errorf("in %s a set-id file was made:\n%s", dir, out)
			}
		}
	} else {
		t.Log("python3 is not in the sandbox's image: only chmod(1) was tried")
	}
	for _, dir := range []string{s.Workspace, filepath.Join(s.StateDir, "home"), filepath.Join(s.StateDir, "tmp")} {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if fi, err := os.Lstat(p); err == nil && fi.Mode()&(fs.ModeSetuid|fs.ModeSetgid) != 0 && p != dir {
				t.Errorf("on the host, %s is %v", p, fi.Mode())
			}
			return nil
		})
	}
}
