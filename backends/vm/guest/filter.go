package guest

import (
	"syscall"

	"golang.org/x/net/bpf"

	"sandboxdesk/backends/syscallfilter"
)

// QEMU's user network delivers a guest's UDP to a broadcast address
// (255.255.255.255, 10.0.2.255) to the host's 127.0.0.1, and no option
// turns that off; routes do not stop it (SO_BINDTODEVICE and
// IP_UNICAST_IF send a limited broadcast past them). The kernel sends to a
// broadcast address only from a socket with SO_BROADCAST set, and the
// other ways round it (raw and packet sockets) need CAP_NET_RAW, which
// the guest's user lacks. So the agent keeps SO_BROADCAST from everything
// it starts with this filter: setting it does nothing, and a send to a
// broadcast address then fails with EACCES. The call answers success
// rather than EPERM because Go's net package sets SO_BROADCAST on every
// UDP socket it makes and gives up when that fails: an EPERM would break
// every Go program's DNS.
//
// The agent loads it on itself, all its threads, once its setup is done
// (Serve), rather than in a re-exec before each command: the agent never
// broadcasts, and the one program of the guest that does, the DHCP client
// under vz, is the init's child, started before the agent and never under
// the filter. The agent is root, so it needs no no_new_privs, and the
// guest's setuid programs keep working (under the filter: it is kept
// across every exec). Guest root can still broadcast with a raw socket;
// guest root is not a boundary (see the security notes).
//
// io_uring is refused too: since Linux 6.7 it sets socket options itself,
// past a filter on setsockopt.
func broadcastFilter() ([]byte, error) {
	a, err := syscallfilter.Native()
	if err != nil {
		return nil, err
	}
	setsockopt, err := syscallfilter.Nr(a, "setsockopt")
	if err != nil {
		return nil, err
	}
	ioUring, err := syscallfilter.Nr(a, "io_uring_setup")
	if err != nil {
		return nil, err
	}
	prog := append(syscallfilter.ArchCheck(a),
		bpf.LoadAbsolute{Off: syscallfilter.OffNr, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: ioUring, SkipFalse: 1},
		syscallfilter.Errno(syscall.EPERM),
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: setsockopt, SkipFalse: 5},
		// level and option are ints: their low 32 bits are what the
		// kernel reads
		bpf.LoadAbsolute{Off: syscallfilter.ArgLow(1), Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: syscall.SOL_SOCKET, SkipFalse: 3},
		bpf.LoadAbsolute{Off: syscallfilter.ArgLow(2), Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: syscall.SO_BROADCAST, SkipFalse: 1},
		syscallfilter.Errno(0), // answers 0, sets nothing
		syscallfilter.Allow,
	)
	return syscallfilter.Encode(prog)
}
