package bubblewrap

import (
	"slices"
	"syscall"
	"testing"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"

	"sandboxdesk/backends/syscallfilter"
)

// runFilter runs the filter bwrap would load on one system call, as the
// kernel would, and returns the action.
func runFilter(t *testing.T, prog []byte, auditArch uint32, nr int, args ...uint64) uint32 {
	t.Helper()
	got, err := syscallfilter.Run(prog, auditArch, nr, args...)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestSeccompFilter(t *testing.T) {
	a, err := arch.GetInfo("")
	if err != nil {
		t.Skipf("no seccomp filter for this architecture: %v", err)
	}
	allow := uint32(seccomp.ActionAllow)
	errno := func(e syscall.Errno) uint32 { return uint32(seccomp.ActionErrno) | uint32(e) }
	nr := func(name string) int {
		n, ok := a.SyscallNames[name]
		if !ok {
			t.Fatalf("no %s on %s", name, a.Name)
		}
		return n
	}
	tests := []struct {
		name   string
		call   string
		args   []uint64
		nested bool // nested user namespaces asked for
		want   uint32
	}{
		{name: "read", call: "read", args: []uint64{0, 0, 0}, want: allow},
		{name: "a plain clone (fork)", call: "clone", args: []uint64{uint64(syscall.SIGCHLD)}, want: allow},
		{name: "keyctl", call: "keyctl", want: errno(syscall.EPERM)},
		{name: "add_key", call: "add_key", want: errno(syscall.EPERM)},
		{name: "request_key", call: "request_key", want: errno(syscall.EPERM)},
		{name: "io_uring_setup", call: "io_uring_setup", want: errno(syscall.EPERM)},
		{name: "io_uring_enter", call: "io_uring_enter", want: errno(syscall.EPERM)},
		{name: "bpf", call: "bpf", want: errno(syscall.EPERM)},
		{name: "perf_event_open", call: "perf_event_open", want: errno(syscall.EPERM)},
		{name: "userfaultfd", call: "userfaultfd", args: []uint64{1}, want: errno(syscall.EPERM)},
		{name: "kexec_load", call: "kexec_load", want: errno(syscall.EPERM)},
		{name: "kexec_file_load", call: "kexec_file_load", want: errno(syscall.EPERM)},
		{name: "ioctl TIOCSTI", call: "ioctl", args: []uint64{0, tiocsti}, want: errno(syscall.EPERM)},
		{name: "ioctl TIOCSTI with high bits the kernel ignores", call: "ioctl", args: []uint64{0, 0xffffffff_00000000 | tiocsti}, want: errno(syscall.EPERM)},
		{name: "ioctl TIOCLINUX", call: "ioctl", args: []uint64{0, tioclinux}, want: errno(syscall.EPERM)},
		{name: "ioctl TIOCGWINSZ", call: "ioctl", args: []uint64{0, syscall.TIOCGWINSZ}, want: allow},
		{name: "socket AF_INET6", call: "socket", args: []uint64{syscall.AF_INET6, syscall.SOCK_STREAM}, want: allow},
		{name: "socket AF_UNIX", call: "socket", args: []uint64{syscall.AF_UNIX, syscall.SOCK_STREAM}, want: allow},
		{name: "socket AF_NETLINK", call: "socket", args: []uint64{syscall.AF_NETLINK, syscall.SOCK_RAW}, want: allow},
		{name: "socket AF_PACKET", call: "socket", args: []uint64{syscall.AF_PACKET, syscall.SOCK_RAW}, want: errno(syscall.EAFNOSUPPORT)},
		{name: "socket AF_ALG", call: "socket", args: []uint64{syscall.AF_ALG, syscall.SOCK_SEQPACKET}, want: errno(syscall.EAFNOSUPPORT)},
		{name: "socket AF_VSOCK (40) with high bits", call: "socket", args: []uint64{1<<32 | 40}, want: errno(syscall.EAFNOSUPPORT)},
		{name: "personality query", call: "personality", args: []uint64{perQuery}, want: allow},
		{name: "personality PER_LINUX", call: "personality", args: []uint64{perLinux}, want: allow},
		{name: "personality READ_IMPLIES_EXEC", call: "personality", args: []uint64{0x0400000}, want: errno(syscall.EPERM)},
		{name: "clone a user namespace", call: "clone", args: []uint64{syscall.CLONE_NEWUSER | uint64(syscall.SIGCHLD)}, want: errno(syscall.EPERM)},
		{name: "unshare a user namespace", call: "unshare", args: []uint64{syscall.CLONE_NEWUSER}, want: errno(syscall.EPERM)},
		{name: "clone3 (flags unreadable)", call: "clone3", want: errno(syscall.ENOSYS)},
		{name: "mount", call: "mount", want: errno(syscall.EPERM)},
		{name: "fsopen", call: "fsopen", want: errno(syscall.ENOSYS)},
		{name: "fchmodat 0755", call: "fchmodat", args: []uint64{0, 0, 0o755}, want: allow},
		{name: "fchmodat setuid", call: "fchmodat", args: []uint64{0, 0, 0o4755}, want: errno(syscall.EPERM)},
		{name: "fchmod setgid", call: "fchmod", args: []uint64{0, 0o2755}, want: errno(syscall.EPERM)},
		{name: "fchmodat2 setuid", call: "fchmodat2", args: []uint64{0, 0, 0o4755, 0}, want: errno(syscall.EPERM)},
		{name: "openat O_CREAT 0755", call: "openat", args: []uint64{0, 0, syscall.O_CREAT, 0o755}, want: allow},
		{name: "openat O_CREAT setuid", call: "openat", args: []uint64{0, 0, syscall.O_CREAT | syscall.O_WRONLY, 0o4755}, want: errno(syscall.EPERM)},
		{name: "openat O_TMPFILE setgid", call: "openat", args: []uint64{0, 0, 0x400000 | syscall.O_DIRECTORY, 0o2755}, want: errno(syscall.EPERM)},
		{name: "openat without O_CREAT ignores the mode", call: "openat", args: []uint64{0, 0, syscall.O_RDONLY, 0o4755}, want: allow},
		{name: "mknodat a setuid file", call: "mknodat", args: []uint64{0, 0, syscall.S_IFREG | 0o4755}, want: errno(syscall.EPERM)},
		{name: "openat2 (mode unreadable)", call: "openat2", want: errno(syscall.ENOSYS)},
		{name: "asked: clone a user namespace", call: "clone", args: []uint64{syscall.CLONE_NEWUSER | uint64(syscall.SIGCHLD)}, nested: true, want: allow},
		{name: "asked: unshare", call: "unshare", args: []uint64{syscall.CLONE_NEWUSER}, nested: true, want: allow},
		{name: "asked: clone3", call: "clone3", nested: true, want: allow},
		{name: "asked: mount", call: "mount", nested: true, want: allow},
		{name: "asked: still no keyctl", call: "keyctl", nested: true, want: errno(syscall.EPERM)},
	}
	progs := map[bool][]byte{}
	for _, nested := range []bool{false, true} {
		if progs[nested], err = seccompProgram(nested); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := runFilter(t, progs[tt.nested], uint32(a.ID), nr(tt.call), tt.args...); got != tt.want {
				t.Errorf("%s(%#x): action %#x, want %#x", tt.call, tt.args, got, tt.want)
			}
		})
	}
	t.Run("another architecture's entry", func(t *testing.T) {
		other := uint32(arch.I386.ID)
		if a.ID == arch.I386.ID {
			other = uint32(arch.X86_64.ID)
		}
		if got := runFilter(t, progs[false], other, nr("read")); got != errno(syscall.ENOSYS) {
			t.Errorf("a call through another architecture: action %#x, want ENOSYS", got)
		}
	})
	if a.Name == arch.X86_64.Name {
		t.Run("x32", func(t *testing.T) {
			if got := runFilter(t, progs[false], uint32(a.ID), 0x40000000|nr("read")); got != errno(syscall.ENOSYS) {
				t.Errorf("an x32 call: action %#x, want ENOSYS", got)
			}
		})
	}
}

// TestSeccompNamesOnBothArchitectures: every system call the filter names
// exists on amd64 and on arm64 (the generator refuses unknown names, so a
// typo or an x86-only name would stop every start on the other one).
func TestSeccompNamesOnBothArchitectures(t *testing.T) {
	names := slices.Concat(deniedAlways, deniedWithoutUserns, enosysWithoutUserns, []string{"ioctl", "socket", "clone", "personality", "openat2"})
	for _, c := range setIDConditions(arch.AARCH64) {
		names = append(names, c.Name)
	}
	for _, a := range []*arch.Info{arch.X86_64, arch.AARCH64} {
		for _, n := range names {
			if _, ok := a.SyscallNames[n]; !ok {
				t.Errorf("%s has no system call %s", a.Name, n)
			}
		}
	}
	for _, n := range deniedAmd64 {
		if _, ok := arch.X86_64.SyscallNames[n]; !ok {
			t.Errorf("amd64 has no system call %s", n)
		}
	}
}
