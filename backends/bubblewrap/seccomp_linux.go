package bubblewrap

import (
	"fmt"
	"syscall"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"

	"sandboxdesk/backends/syscallfilter"
)

// The sandbox's seccomp filter, in the spirit of Flatpak's: it allows
// everything but the kernel interfaces a coding sandbox has no use for and
// that keep being the way out (keyrings shared with the host, io_uring,
// eBPF, perf, userfaultfd, terminal injection, rare socket families), and,
// unless nested user namespaces are asked for, the ways to make a user
// namespace of one's own, which would hand back the capabilities bwrap
// dropped. A denied call fails with EPERM (ENOSYS where a C library must
// fall back, EAFNOSUPPORT for a socket family), never a kill, so programs
// that probe degrade instead of dying.

// deniedAlways fail with EPERM in every sandbox.
var deniedAlways = []string{
	// the kernel keyrings: the controller's session keyring and the
	// user's keys are the host's, not the sandbox's
	"keyctl", "add_key", "request_key",
	// large, young kernel surfaces behind a history of local escapes
	"io_uring_setup", "io_uring_enter", "io_uring_register",
	"bpf", "perf_event_open", "userfaultfd",
	// the machine's, not a sandbox's (capabilities already stop them)
	"kexec_load", "kexec_file_load", "syslog", "acct", "quotactl",
}

// deniedAmd64 exist only on x86: 16-bit segments and a long-dead loader.
var deniedAmd64 = []string{"modify_ldt", "uselib"}

// deniedWithoutUserns fail with EPERM unless nested user namespaces are
// asked for. Without a user namespace of its own a process has no
// capabilities, so these fail anyway; denying them here also keeps their
// kernel code out of reach.
var deniedWithoutUserns = []string{"unshare", "setns", "mount", "umount2", "pivot_root", "chroot"}

// enosysWithoutUserns are the new mount API and clone3, whose flags sit
// behind a pointer the filter cannot read: ENOSYS makes the C library fall
// back to clone, whose flags it can.
var enosysWithoutUserns = []string{"clone3", "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr"}

// Argument values the filter checks.
const (
	setID        = syscall.S_ISUID | syscall.S_ISGID
	openCreate   = syscall.O_CREAT | 0x400000 // O_CREAT or __O_TMPFILE (the same on amd64 and arm64)
	cloneNewUser = syscall.CLONE_NEWUSER
	tiocsti      = 0x5412 // the same number on amd64 and arm64
	tioclinux    = 0x541c
	perLinux     = 0x0000
	perLinux32   = 0x0008
	perQuery     = 0xffffffff // reads the personality, changes nothing
)

// socketFamilies are the only socket families a sandbox may open: local,
// IPv4, IPv6 and netlink (which the C library uses to list interfaces).
var socketFamilies = []uint32{syscall.AF_UNIX, syscall.AF_INET, syscall.AF_INET6, syscall.AF_NETLINK}

// seccompProgram is the filter for this machine's architecture as the
// struct sock_filter array bwrap's --seccomp reads.
func seccompProgram(nestedUserns bool) ([]byte, error) {
	a, err := syscallfilter.Native()
	if err != nil {
		return nil, err
	}
	head, err := seccompHead(a)
	if err != nil {
		return nil, err
	}
	// the generator assembles for the architecture it runs on, as a
	// sandbox's filter must
	policy := seccompPolicy(a, nestedUserns)
	body, err := policy.Assemble()
	if err != nil {
		return nil, fmt.Errorf("build the seccomp filter: %w", err)
	}
	return syscallfilter.Encode(append(head, body...))
}

// seccompHead is written by hand for what the generator cannot say: the
// architecture check every filter starts with, and ioctl requests and
// socket families compared on their low 32 bits only, as the kernel reads
// them (TIOCSTI with a high bit set is still TIOCSTI).
func seccompHead(a *arch.Info) ([]bpf.Instruction, error) {
	ioctl, err := syscallfilter.Nr(a, "ioctl")
	if err != nil {
		return nil, err
	}
	socket, err := syscallfilter.Nr(a, "socket")
	if err != nil {
		return nil, err
	}
	head := append(syscallfilter.ArchCheck(a),
		bpf.LoadAbsolute{Off: syscallfilter.OffNr, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: ioctl, SkipFalse: 4},
		bpf.LoadAbsolute{Off: syscallfilter.ArgLow(1), Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: tiocsti, SkipTrue: 1},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: tioclinux, SkipFalse: 1},
		syscallfilter.Errno(syscall.EPERM),
		bpf.LoadAbsolute{Off: syscallfilter.OffNr, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: socket, SkipFalse: uint8(len(socketFamilies) + 2)},
		bpf.LoadAbsolute{Off: syscallfilter.ArgLow(0), Size: 4},
	)
	for i, f := range socketFamilies {
		head = append(head, bpf.JumpIf{Cond: bpf.JumpEqual, Val: f, SkipTrue: uint8(len(socketFamilies) - i)})
	}
	return append(head, syscallfilter.Errno(syscall.EAFNOSUPPORT)), nil
}

// seccompPolicy is the rest of the filter, by name, for the generator.
func seccompPolicy(a *arch.Info, nestedUserns bool) seccomp.Policy {
	denied := append([]string(nil), deniedAlways...)
	if a.Name == arch.X86_64.Name {
		denied = append(denied, deniedAmd64...)
	}
	// personality: only plain Linux (and its 32-bit flavour) or a query;
	// no READ_IMPLIES_EXEC or ADDR_NO_RANDOMIZE to weaken what runs next
	conditional := []seccomp.NameWithConditions{{Name: "personality", Conditions: seccomp.ArgumentConditions{
		{Argument: 0, Operation: seccomp.NotEqual, Value: perLinux},
		{Argument: 0, Operation: seccomp.NotEqual, Value: perLinux32},
		{Argument: 0, Operation: seccomp.NotEqual, Value: perQuery},
	}}}
	conditional = append(conditional, setIDConditions(a)...)
	// openat2's mode sits in a struct the filter cannot read; the C
	// library and Go's os package do not use it, and callers that probe
	// fall back to openat on ENOSYS
	enosys := []string{"openat2"}
	if !nestedUserns {
		denied = append(denied, deniedWithoutUserns...)
		enosys = append(enosys, enosysWithoutUserns...)
		// clone's flags are its first argument on amd64 and arm64
		conditional = append(conditional, seccomp.NameWithConditions{Name: "clone", Conditions: seccomp.ArgumentConditions{
			{Argument: 0, Operation: seccomp.BitsSet, Value: cloneNewUser},
		}})
	}
	groups := []seccomp.SyscallGroup{
		{Names: denied, NamesWithCondtions: conditional, Action: seccomp.ActionErrno},
		{Names: enosys, Action: seccomp.ActionErrno | seccomp.Action(syscall.ENOSYS)},
	}
	return seccomp.Policy{DefaultAction: seccomp.ActionAllow, Syscalls: groups}
}

// setIDConditions deny every way to give a file a setuid or setgid bit.
// What the sandbox writes in the workspace is the workspace's person's on
// the host (root's, when root runs the app without sudo): a setuid binary
// made there would run as them for anyone who reaches it, and a
// sandbox's own host uid (the owner of its user namespace) would be as
// bad a gift. chmod (amd64), fchmod, fchmodat and fchmodat2 take a mode;
// open, creat, openat and mknod make a file with one.
func setIDConditions(a *arch.Info) []seccomp.NameWithConditions {
	mode := func(name string, arg uint32) seccomp.NameWithConditions {
		return seccomp.NameWithConditions{Name: name, Conditions: seccomp.ArgumentConditions{
			{Argument: arg, Operation: seccomp.BitsSet, Value: setID},
		}}
	}
	creating := func(name string, flags, arg uint32) seccomp.NameWithConditions {
		return seccomp.NameWithConditions{Name: name, Conditions: seccomp.ArgumentConditions{
			{Argument: flags, Operation: seccomp.BitsSet, Value: openCreate},
			{Argument: arg, Operation: seccomp.BitsSet, Value: setID},
		}}
	}
	out := []seccomp.NameWithConditions{
		mode("fchmod", 1), mode("fchmodat", 2), mode("fchmodat2", 2), mode("mknodat", 2),
		creating("openat", 2, 3),
	}
	if a.Name == arch.X86_64.Name {
		out = append(out, mode("chmod", 1), mode("creat", 1), mode("mknod", 1), creating("open", 1, 2))
	}
	return out
}
