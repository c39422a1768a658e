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
