package guest

import (
	"syscall"
	"testing"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"

	"sandboxdesk/backends/syscallfilter"
)

func TestBroadcastFilter(t *testing.T) {
	a, err := syscallfilter.Native()
	if err != nil {
		t.Skipf("no seccomp filter for this architecture: %v", err)
	}
	prog, err := broadcastFilter()
	if err != nil {
		t.Fatal(err)
	}
	allow := uint32(seccomp.ActionAllow)
	errno := func(e syscall.Errno) uint32 { return uint32(seccomp.ActionErrno) | uint32(e) }
	nr := func(name string) int { n, _ := syscallfilter.Nr(a, name); return int(n) }
	ignored := errno(0)  // the call answers 0 and does nothing
	const high = 1 << 32 // a high half the kernel ignores for an int
	tests := []struct {
		name string
		arch uint32
		nr   int
		args []uint64
		want uint32
	}{
		{"SO_BROADCAST", uint32(a.ID), nr("setsockopt"), []uint64{3, syscall.SOL_SOCKET, syscall.SO_BROADCAST}, ignored},
		{"SO_BROADCAST with high halves", uint32(a.ID), nr("setsockopt"), []uint64{3, high | syscall.SOL_SOCKET, high | syscall.SO_BROADCAST}, ignored},
		{"SO_REUSEADDR", uint32(a.ID), nr("setsockopt"), []uint64{3, syscall.SOL_SOCKET, syscall.SO_REUSEADDR}, allow},
		{"SO_BROADCAST's number at the IP level", uint32(a.ID), nr("setsockopt"), []uint64{3, syscall.IPPROTO_IP, syscall.SO_BROADCAST}, allow},
		{"getsockopt SO_BROADCAST", uint32(a.ID), nr("getsockopt"), []uint64{3, syscall.SOL_SOCKET, syscall.SO_BROADCAST}, allow},
		{"sendto", uint32(a.ID), nr("sendto"), nil, allow},
		{"socket", uint32(a.ID), nr("socket"), []uint64{syscall.AF_INET, syscall.SOCK_DGRAM, 0}, allow},
		{"io_uring_setup", uint32(a.ID), nr("io_uring_setup"), nil, errno(syscall.EPERM)},
		{"another architecture's entry", uint32(arch.I386.ID), nr("setsockopt"), []uint64{3, syscall.SOL_SOCKET, syscall.SO_BROADCAST}, errno(syscall.ENOSYS)},
		{"an x32 call", uint32(a.ID), nr("setsockopt") | 0x40000000, []uint64{3, syscall.SOL_SOCKET, syscall.SO_BROADCAST}, errno(syscall.ENOSYS)},
	}
	for _, tt := range tests {
		got, err := syscallfilter.Run(prog, tt.arch, tt.nr, tt.args...)
		if err != nil {
			t.Fatal(err)
		}
		if got != tt.want {
			t.Errorf("%s: action %#x, want %#x", tt.name, got, tt.want)
		}
	}
}
