//go:build linux

package bubblewrap

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestHostileInheritedDescriptorsStayOut: a descriptor the controller
// holds without close-on-exec (inherited from whatever started it: a
// terminal, a CI runner's pipe, a file opened by C code) never reaches a
// sandbox, where it would read or write what it names on the host.
func TestHostileInheritedDescriptorsStayOut(t *testing.T) {
	secret := randomText(t)
	path := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(path, []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	opened, err := unix.Open(path, unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(opened)
	// above those the sandbox's start hands down, and without
	// close-on-exec, as an inherited descriptor
	const fd = 100
	if err := unix.Dup3(opened, fd, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	r := newRig(t)
	s := r.spec("fds")
	r.start(s, 256)
	n := strconv.Itoa(fd)
	_, out := r.run(s.ID, "bash", "-c", "ls -l /proc/self/fd/ /proc/1/fd/ 2>&1; cat <&"+n+"; echo pwned >&"+n)
	if strings.Contains(out, secret) || strings.Contains(out, path) {
		t.Errorf("the controller's descriptor %d reached the sandbox:\n%s", fd, out)
	}
	if data, _ := os.ReadFile(path); string(data) != secret {
		t.Errorf("the sandbox wrote the host file through the controller's descriptor: %q", data)
	}
}

// TestHostileControllerLogUnreachable: bwrap, the sandbox's pid 1, holds
// its log in the controller's private folder open, and a process of the
// sandbox could open it again through /proc/1/fd/1 wherever the file's
// mode lets its host user, which for a person's controller is the
// controller's own user. Once the sandbox runs, no process of it reads or
// writes the log.
func TestHostileControllerLogUnreachable(t *testing.T) {
	r := newRig(t)
	s := r.spec("log")
	r.start(s, 256)
	log := filepath.Join(r.b.ctlDir(s.ID), logFileName)
	before, err := os.Stat(log) // its mode may deny reading it to the controller's user too
	if err != nil {
		t.Fatal(err)
	}
	_, out := r.sh(s.ID, "for n in 1 2; do readlink /proc/1/fd/$n; cat /proc/1/fd/$n >/dev/null && echo read $n; echo planted >> /proc/1/fd/$n && echo wrote $n; done 2>&1")
	if !strings.Contains(out, logFileName) {
		t.Fatalf("bwrap's output is not its log any more (%q): the test needs another way in", out)
	}
	if strings.Contains(out, "read ") || strings.Contains(out, "wrote ") {
		t.Errorf("a process of the sandbox opened the controller's log:\n%s", out)
	}
	if after, err := os.Stat(log); err != nil || after.Size() != before.Size() {
		t.Errorf("the controller's log changed: %v, %d bytes, was %d", err, after.Size(), before.Size())
	}
}
