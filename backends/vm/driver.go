package vm

import (
	"context"
	"io"

	"sandboxdesk/backends"
)

// Driver boots and controls machines for one hypervisor (qemu on Linux,
// vz on macOS). Everything a hypervisor differs in stays behind it: the
// agent's channel (virtio-serial or vsock), the disk format (qcow2 or raw
// clone), the workspace share (9p or virtio-fs), how a machine is found
// again after the controller restarts.
type Driver interface {
	// Name is the driver's name for inspect ("qemu").
	Name() string
	// Accel says how machines would run here ("kvm", "tcg"), probing once.
	Accel(ctx context.Context, img Image) string
	// Boot starts the machine m describes and returns once it runs (the
	// guest may still be booting).
	Boot(ctx context.Context, m Machine) (Handle, error)
	// Attach finds again the machine booted in dir by an earlier
	// controller; ErrGone when it no longer runs.
	Attach(ctx context.Context, dir string) (Handle, error)
	// CanCheckpoint says whether Handle.Save can work here.
	CanCheckpoint() bool
}

// Fitter is a driver whose hypervisor builds machines only within bounds
// (vz: the memory and CPUs VZVirtualMachineConfiguration allows). Fit
// returns m as it will really be built; the core records and reports
// that, so a sandbox's ReservedMiB is what its machine holds.
type Fitter interface {
	Fit(m Machine) Machine
}

// Machine is what to boot.
type Machine struct {
	// Dir is the sandbox's folder, the controller's own: sockets, disk,
	// console log.
	Dir string
	// Image gives the kernel, initrd and (maybe) root disk.
	Image Image
	// MemoryMiB and CPUs are what the machine is built with.
	MemoryMiB int64
	CPUs      int
	// Hostname is set in the guest (already checked to be safe).
	Hostname string
	// Workspace is the host folder the guest mounts at /workspace.
	Workspace string
	// Network: user-mode networking, outbound only ("on") or with the
	// host's loopback too ("host"); no network device when "off".
	Network backends.Network
	// Restore, when set, names the checkpoint file in Dir the machine is
	// restored from instead of booting; Boot returns once it runs again.
	Restore string
}

// Handle is one running machine.
type Handle interface {
	// Agent connects to the guest agent's channel: one byte stream that
	// package channel multiplexes.
	Agent(ctx context.Context) (io.ReadWriteCloser, error)
	// MemoryMiB reads back the memory the machine has, from the hypervisor.
	MemoryMiB(ctx context.Context) (int64, error)
	// Save writes the machine's state to file (in its folder) and ends
	// it; on an error the machine runs on.
	Save(ctx context.Context, file string) error
	// Kill forces the machine off at once.
	Kill(ctx context.Context) error
	// Exited is closed when the machine is gone.
	Exited() <-chan struct{}
	// Close lets go of the machine without stopping it.
	Close() error
}
