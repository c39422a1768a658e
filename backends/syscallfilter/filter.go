// Package syscallfilter holds what every seccomp filter of the project is
// built from: the layout of the kernel's seccomp_data, the refusal of
// another architecture's system calls, the encoding the kernel (and bwrap's
// --seccomp) reads, and a BPF machine that runs a filter as the kernel
// would, for tests. The filters themselves live with what they guard: the
// bubblewrap sandbox's in package bubblewrap, a VM guest's commands' in
// package guest.
package syscallfilter

import (
	"encoding/binary"
	"fmt"
	"syscall"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
)

// seccomp_data: nr (4 bytes), arch (4), instruction pointer (8), six
// 64-bit arguments. Both supported architectures are little-endian, so an
// argument's low half comes first.
const (
	OffNr   = 0
	OffArch = 4
	offArgs = 16
)

// ArgLow is the offset of the low 32 bits of argument i: an int argument
// is compared there only, as the kernel reads it (a high bit set changes
// nothing for the kernel, and must change nothing for the filter).
func ArgLow(i uint32) uint32 { return offArgs + 8*i }

// x32Bit marks amd64's x32 system calls: the same audit architecture as
// native calls, other numbers for the same calls.
const x32Bit = 0x40000000

// Errno is a filter's return that fails the call with e.
func Errno(e syscall.Errno) bpf.RetConstant {
	return bpf.RetConstant{Val: uint32(seccomp.ActionErrno) | uint32(e)}
}

// Allow is a filter's return that lets the call through.
var Allow = bpf.RetConstant{Val: uint32(seccomp.ActionAllow)}

// Native is this machine's architecture, whose filters are built here.
func Native() (*arch.Info, error) {
	a, err := arch.GetInfo("")
	if err != nil {
		return nil, fmt.Errorf("build the seccomp filter: %w", err)
	}
	return a, nil
}

// Nr is the number of the system call name on a.
func Nr(a *arch.Info, name string) (uint32, error) {
	n, ok := a.SyscallNames[name]
	if !ok {
		return 0, fmt.Errorf("build the seccomp filter: no %s on %s", name, a.Name)
	}
	return uint32(n), nil
}

// ArchCheck starts every filter: a call made through another
// architecture's entry (a 64-bit process can make i386 system calls, whose
// numbers differ and whose socket calls hide behind socketcall) fails with
// ENOSYS, as do amd64's x32 calls.
func ArchCheck(a *arch.Info) []bpf.Instruction {
	return []bpf.Instruction{
		bpf.LoadAbsolute{Off: OffArch, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(a.ID), SkipTrue: 1},
		Errno(syscall.ENOSYS),
		bpf.LoadAbsolute{Off: OffNr, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: x32Bit, SkipFalse: 1},
		Errno(syscall.ENOSYS),
	}
}

// Encode assembles a filter into the struct sock_filter array the kernel
// and bwrap's --seccomp read.
func Encode(insts []bpf.Instruction) ([]byte, error) {
	raw, err := bpf.Assemble(insts)
	if err != nil {
		return nil, fmt.Errorf("build the seccomp filter: %w", err)
	}
	out := make([]byte, 0, 8*len(raw))
	for _, r := range raw {
		out = binary.NativeEndian.AppendUint16(out, r.Op)
		out = append(out, r.Jt, r.Jf)
		out = binary.NativeEndian.AppendUint32(out, r.K)
	}
	return out, nil
}

// Run runs an encoded filter on one system call, as the kernel would, and
// returns its action: how tests see what a filter decides.
func Run(prog []byte, auditArch uint32, nr int, args ...uint64) (uint32, error) {
	var raw []bpf.RawInstruction
	for b := prog; len(b) >= 8; b = b[8:] {
		raw = append(raw, bpf.RawInstruction{
			Op: binary.NativeEndian.Uint16(b), Jt: b[2], Jf: b[3], K: binary.NativeEndian.Uint32(b[4:]),
		})
	}
	insts, ok := bpf.Disassemble(raw)
	if !ok {
		return 0, fmt.Errorf("the filter does not disassemble")
	}
	vm, err := bpf.NewVM(insts)
	if err != nil {
		return 0, err
	}
	// the VM loads words big-endian; lay each 32-bit word of seccomp_data
	// out so that it reads what the kernel reads natively
	data := make([]byte, 64)
	binary.BigEndian.PutUint32(data[OffNr:], uint32(nr))
	binary.BigEndian.PutUint32(data[OffArch:], auditArch)
	for i, a := range args {
		binary.BigEndian.PutUint32(data[ArgLow(uint32(i)):], uint32(a))
		binary.BigEndian.PutUint32(data[ArgLow(uint32(i))+4:], uint32(a>>32))
	}
	got, err := vm.Run(data)
	return uint32(got), err
}
