//go:build linux

package bubblewrap

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"sandboxdesk/backends"
	"sandboxdesk/ipc"
)

const onlyRootAllocates = "only a root controller gives each sandbox a host uid of its own; a plain user's sandboxes run as that user"

// hostUID is the host uid the sandbox's bwrap runs as.
func hostUID(t *testing.T, r *rig, id string) int {
	t.Helper()
	sb, ok := r.b.get(id)
	if !ok {
		t.Fatalf("sandbox %s is not running", id)
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", sb.pid.Pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "Uid:" {
			uid, _ := strconv.Atoi(f[1])
			return uid
		}
	}
	t.Fatal("no Uid line in /proc/PID/status")
	return -1
}

func ownerOf(t *testing.T, path string) int {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return int(fi.Sys().(*syscall.Stat_t).Uid)
}

// asUser runs a shell script on the host as uid (and gid uid), or as this
// process when uid is ours.
func asUser(uid int, home, script string) (string, error) {
	args := []string{"sh", "-c", script}
	if uid != os.Geteuid() {
		id := strconv.Itoa(uid)
		args = append([]string{"setpriv", "--reuid=" + id, "--regid=" + id, "--clear-groups", "--"}, args...)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = "/"
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + home, "LANG=C"}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// passable lets everyone pass through the folders above root, as a root
// below /home or /srv would; root itself stays as the backend makes it.
func passable(t *testing.T, root string) {
	t.Helper()
	for d := filepath.Dir(root); d != "/" && d != os.TempDir(); d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o711); err != nil {
			t.Fatal(err)
		}
	}
}

func TestHostileSandboxesGetTheirOwnHostUID(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip(onlyRootAllocates)
	}
	r := newRig(t)
	other := newRig(t) // a second root on the same host
	a, b, c := r.spec("a"), r.spec("b"), other.spec("c")
	r.start(a, 256)
	r.start(b, 256)
	other.start(c, 256)
	uids := map[int]string{}
	for _, s := range []struct {
		r  *rig
		id string
	}{{r, a.ID}, {r, b.ID}, {other, c.ID}} {
		uid := hostUID(t, s.r, s.id)
		if prev, dup := uids[uid]; dup {
			t.Errorf("%s and %s both run as host uid %d", prev, s.id, uid)
		}
		uids[uid] = s.id
		if uid <= uidBase || uid >= uidBase+uidCount {
			t.Errorf("%s runs as host uid %d, outside the reserved %d-%d", s.id, uid, uidBase+1, uidBase+uidCount-1)
		}
		if _, err := user.LookupId(strconv.Itoa(uid)); err == nil {
			t.Errorf("%s runs as host uid %d, which the host's user database names", s.id, uid)
		}
		if got := ownerOf(t, filepath.Join(s.r.b.stateDir(s.id), "home")); got != uid {
			t.Errorf("%s's home is host uid %d's, want %d", s.id, got, uid)
		}
	}
	// the uid stays the sandbox's across a stop and a start: it owns its files
	before := hostUID(t, r, a.ID)
	if _, err := r.b.Stop(t.Context(), a.ID, 0); err != nil {
		t.Fatal(err)
	}
	r.start(a, 256)
	if after := hostUID(t, r, a.ID); after != before {
		t.Errorf("host uid %d after a restart, was %d", after, before)
	}
	if code, out := r.sh(a.ID, "touch ~/still-mine && id -u"); code != 0 || strings.TrimSpace(out) != "1000" {
		t.Errorf("home after a restart: %d %q", code, out)
	}
}

func TestHostileSandboxUserCannotChangeTheControllersFiles(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip(onlyRootAllocates)
	}
	r := newRig(t)
	s := r.spec("w")
	r.start(s, 256)
	uid := hostUID(t, r, s.ID)
	victim := filepath.Join(t.TempDir(), "victim")
	os.WriteFile(victim, []byte("victim"), 0o644)
	// even where the root's parents let everyone through, the sandbox's
	// host user may not change an entry of the controller's folders
	passable(t, r.root)
	os.Chmod(r.root, 0o711)
	os.Chmod(filepath.Join(r.root, "sandboxes"), 0o711)
	for _, f := range []string{"bwrap.log", "bwrap.pid", "uid", "etc/passwd", "etc/hosts"} {
		p := filepath.Join(s.StateDir, f)
		if out, err := asUser(uid, "/", "ln -sf "+victim+" "+p+" || { rm -f "+p+" && ln -s "+victim+" "+p+"; }"); err == nil {
			t.Errorf("the sandbox's host user replaced %s with a link: %s", f, out)
		}
	}
	if _, err := r.b.Stop(t.Context(), s.ID, 0); err != nil {
		t.Fatal(err)
	}
	r.start(s, 256)
	if b, _ := os.ReadFile(victim); string(b) != "victim" {
		t.Errorf("the victim file now holds %q", b)
	}
}

func TestHostileLinksInTheSandboxFolderAreNotFollowed(t *testing.T) {
	r := newRig(t)
	s := r.spec("w")
	r.start(s, 256)
	if _, err := r.b.Stop(t.Context(), s.ID, 0); err != nil {
		t.Fatal(err)
	}
	victims := t.TempDir()
	// links planted while the folder was not the controller's alone (as
	// an older version left it): symlinks and hard links to a host file
	plant := map[string]string{
		"bwrap.log": "symlink", "bwrap.pid": "hardlink", "etc/passwd": "symlink",
		"etc/hosts": "hardlink", "etc/hostname": "symlink",
	}
	if os.Geteuid() == 0 {
		plant["uid"] = "symlink" // the record of its host uid
	}
	for f, kind := range plant {
		victim := filepath.Join(victims, strings.ReplaceAll(f, "/", "-"))
		os.WriteFile(victim, []byte("victim"), 0o644)
		p := filepath.Join(s.StateDir, f)
		os.Remove(p)
		var err error
		if kind == "symlink" {
			err = os.Symlink(victim, p)
		} else {
			err = os.Link(victim, p)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	r.start(s, 256)
	for f := range plant {
		victim := filepath.Join(victims, strings.ReplaceAll(f, "/", "-"))
		fi, _ := os.Stat(victim)
		if b, _ := os.ReadFile(victim); string(b) != "victim" || fi.Mode().Perm() != 0o644 {
			t.Errorf("starting through a link at %s changed the victim: %q, %v", f, b, fi.Mode())
		}
		if f == "bwrap.log" || f == "bwrap.pid" {
			continue // the controller no longer writes these here (see ctlDir)
		}
		if fi, err := os.Lstat(filepath.Join(s.StateDir, f)); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			t.Errorf("%s is still a link", f)
		}
	}
	if code, out := r.sh(s.ID, "hostname; grep -c sandbox /etc/passwd"); code != 0 || out != "w\n1\n" {
		t.Errorf("the sandbox after its files were rewritten: %d %q", code, out)
	}
}

func TestHostileWorkspaceBelongsToItsPerson(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	tests := []struct {
		name   string
		sudo   string // SUDO_UID and SUDO_GID; "" unset
		person int
	}{{name: "the controller's user", person: os.Geteuid()}}
	if os.Geteuid() == 0 {
		tests = []struct {
			name   string
			sudo   string
			person int
		}{{"root run through sudo by uid 4242", "4242", 4242}, {"root itself", "", 0}}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("SUDO_UID", tt.sudo)
			t.Setenv("SUDO_GID", tt.sudo)
			workspaceBelongsTo(t, tt.person)
		})
	}
}

func workspaceBelongsTo(t *testing.T, person int) {
	r := newRig(t)
	s := r.spec("w")
	r.start(s, 256)
	if os.Geteuid() == 0 {
		if uid := hostUID(t, r, s.ID); uid == person || uid == 65534 {
			t.Errorf("the sandbox runs as host uid %d, not one of its own", uid)
		}
	}
	if person != os.Geteuid() {
		// the test's temporary folders are closed to the person
		r.mu.Lock()
		told := strings.Join(r.events, "\n")
		r.mu.Unlock()
		if !strings.Contains(told, "cannot reach it on the host") {
			t.Errorf("no notice that the person cannot reach the workspace; events: %q", told)
		}
	}
	passable(t, r.root)
	home := t.TempDir()
	os.Chmod(home, 0o777)
	ws := s.Workspace
	if out, err := asUser(person, home, "cd "+ws+" && git init -q && echo mine > mine.txt"); err != nil {
		t.Fatalf("the person cannot work in their workspace: %v %s", err, out)
	}
	if code, out := r.sh(s.ID, "echo inside >> mine.txt && echo new > made-inside.txt && mkdir made-dir && stat -c %u mine.txt"); code != 0 || out != "1000\n" {
		t.Fatalf("inside, the person's file: %d %q", code, out)
	}
	for _, f := range []string{"made-inside.txt", "made-dir", "mine.txt"} {
		if got := ownerOf(t, filepath.Join(ws, f)); got != person {
			t.Errorf("%s is host uid %d's, want the person's (%d)", f, got, person)
		}
	}
	out, err := asUser(person, home, "cd "+ws+" && git status --porcelain")
	if err != nil || !strings.Contains(out, "made-inside.txt") {
		t.Errorf("host git status as the person: %v %q", err, out)
	}
}

func TestHostileControllerStateIsPrivate(t *testing.T) {
	newRig(t) // skips where bwrap is missing
	root := t.TempDir()
	// as an earlier version left it
	os.Chmod(root, 0o755)
	os.WriteFile(filepath.Join(root, "state.db"), nil, 0o644)
	c, err := openController(t.Context(), root)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Shutdown(t.Context())
	if _, err := c.Create(t.Context(), ipc.CreateRequest{Name: "w", MemoryMiB: ptr(int64(256))}); err != nil {
		t.Fatal(err)
	}
	code, err := c.Exec(t.Context(), ipc.Ref{Name: "w"}, backends.ExecRequest{Args: []string{"true"}})
	if err != nil || code != 0 {
		t.Fatal(code, err)
	}
	want := map[string]os.FileMode{"": 0o700, "state.db": 0o600, "state.db-wal": 0o600, "state.db-shm": 0o600}
	for f, mode := range want {
		fi, err := os.Stat(filepath.Join(root, f))
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if fi.Mode().Perm() != mode {
			t.Errorf("%q has mode %v, want %v", filepath.Join(root, f), fi.Mode().Perm(), mode)
		}
	}
}
