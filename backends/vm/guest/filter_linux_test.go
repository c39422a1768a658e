package guest

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestHostileBroadcastFilterInKernel loads the guest's filter in a child
// of the test, as the agent does, and sees SO_BROADCAST stay off on a
// real kernel. Nothing is sent: the kernel's EACCES for a broadcast from
// such a socket is its own rule, shown in the VM by the qemu test.
func TestHostileBroadcastFilterInKernel(t *testing.T) {
	if os.Getenv("GUEST_FILTER_CHILD") == "1" {
		broadcastChild()
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHostileBroadcastFilterInKernel$")
	cmd.Env = append(os.Environ(), "GUEST_FILTER_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "SO_BROADCAST stays 0") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func broadcastChild() {
	die := func(what string, err error) {
		os.Stdout.WriteString(what + ": " + err.Error() + "\n")
		os.Exit(1)
	}
	// the agent is root; a test run by another user needs no_new_privs
	// to load a filter
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		die("no_new_privs", err)
	}
	if err := refuseBroadcast(); err != nil {
		die("load", err)
	}
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM, 0)
	if err != nil {
		die("socket", err)
	}
	if err := syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_BROADCAST, 1); err != nil {
		die("setsockopt", err)
	}
	// an option the filter leaves alone still works
	if err := syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1); err != nil {
		die("SO_REUSEADDR", err)
	}
	on, err := syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_BROADCAST)
	if err != nil {
		die("getsockopt", err)
	}
	reuse, _ := syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_REUSEADDR)
	if on != 0 || reuse != 1 {
		os.Stdout.WriteString("SO_BROADCAST is set\n")
		os.Exit(1)
	}
	os.Stdout.WriteString("SO_BROADCAST stays 0\n")
	os.Exit(0)
}
