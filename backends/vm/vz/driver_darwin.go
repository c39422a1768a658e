package vz

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"syscall"

	"github.com/Code-Hex/vz/v3"
	"golang.org/x/sys/unix"

	"sandboxdesk/backends/vm"
)

// Driver boots machines with Virtualization.framework in this process.
type Driver struct {
	limits Limits
	macOS  int // major version
}

// New returns the driver, or ErrUnsupported with the reason when this
// macOS is too old for it.
func New() (*Driver, error) {
	product, err := unix.Sysctl("kern.osproductversion")
	if err != nil {
		return nil, fmt.Errorf("vz: read the macOS version: %w", err)
	}
	major := majorVersion(product)
	if major < MinMacOS {
		return nil, fmt.Errorf("%w: VM sandboxes need macOS %d or later, and this Mac runs macOS %s", ErrUnsupported, MinMacOS, product)
	}
	const mib = 1 << 20
	return &Driver{macOS: major, limits: Limits{
		MinMemoryMiB: int64((vz.VirtualMachineConfigurationMinimumAllowedMemorySize() + mib - 1) / mib),
		MaxMemoryMiB: int64(vz.VirtualMachineConfigurationMaximumAllowedMemorySize() / mib),
		MinCPUs:      int(vz.VirtualMachineConfigurationMinimumAllowedCPUCount()),
		MaxCPUs:      int(vz.VirtualMachineConfigurationMaximumAllowedCPUCount()),
	}}, nil
}

// Name is "vz".
func (d *Driver) Name() string { return Name }

// Accel: the framework always runs machines on Apple's hypervisor.
func (d *Driver) Accel(context.Context, vm.Image) string { return "hvf" }

// CanCheckpoint: saved machine state exists on macOS 14 and later, on
// Apple silicon.
func (d *Driver) CanCheckpoint() bool { return canCheckpoint(runtime.GOARCH, d.macOS) }

// Fit clamps the machine's memory and CPUs to what this Mac allows.
func (d *Driver) Fit(m vm.Machine) vm.Machine {
	m.MemoryMiB, m.CPUs = Fit(m.MemoryMiB, m.CPUs, d.limits)
	return m
}

// Attach: a machine lives in the process that booted it, so one booted
// by an earlier process ended with it.
func (d *Driver) Attach(context.Context, string) (vm.Handle, error) { return nil, vm.ErrGone }

// Check says whether machines of img can run here at all: the kernel is
// one the framework boots, and a configuration of it validates (which
// fails without the entitlement, or on a Mac without virtualization).
func (d *Driver) Check(img vm.Image) error {
	kernel := img.Path(img.Manifest.Kernel)
	if err := kernelOK(kernel); err != nil {
		return err
	}
	bl, err := vz.NewLinuxBootLoader(kernel)
	if err != nil {
		return refused(err)
	}
	conf, err := vz.NewVirtualMachineConfiguration(bl, uint(max(d.limits.MinCPUs, 1)), uint64(max(d.limits.MinMemoryMiB, 512))<<20)
	if err != nil {
		return refused(err)
	}
	return validate(conf)
}

// Boot builds the machine m describes and starts it, or resumes it from
// its saved state.
func (d *Driver) Boot(ctx context.Context, m vm.Machine) (vm.Handle, error) {
	c, err := Configure(m, d.limits)
	if err != nil {
		return nil, err
	}
	if err := kernelOK(c.Kernel); err != nil {
		return nil, err
	}
	if len(c.Disks) > 0 {
		if c.Restore == "" {
			// a cold boot starts from the image's disk, as qemu's overlay does
			if _, err := copyDisk(m.Image.Path(*m.Image.Manifest.RootDisk), c.Disks[0].Path, clonefile); err != nil {
				return nil, err
			}
		} else if _, err := os.Lstat(c.Disks[0].Path); err != nil {
			return nil, fmt.Errorf("restore: the disk saved with the machine: %w", err)
		}
	}
	conf, err := configuration(c)
	if err != nil {
		return nil, err
	}
	machine, err := vz.NewVirtualMachine(conf)
	if err != nil {
		return nil, refused(err)
	}
	if c.Restore != "" {
		err = resume(machine, c.Restore)
	} else {
		err = machine.Start()
	}
	if err != nil {
		return nil, refused(err)
	}
	return newHandle(machine, c, filepath.Dir(c.ConsoleLog)), nil
}

// resume restores a machine from its saved state and runs it.
func resume(machine *vz.VirtualMachine, file string) error {
	if err := restoreState(machine, file); err != nil {
		return err
	}
	return machine.Resume()
}

// kernelOK reads the head of the kernel and checks it.
func kernelOK(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, _ := f.Read(head)
	return checkKernel(head[:n], runtime.GOARCH)
}

// clonefile clones src as dst on APFS; another file system (or volume)
// cannot, and says errCannotClone.
func clonefile(src, dst string) error {
	err := unix.Clonefile(src, dst, unix.CLONE_NOFOLLOW)
	if errors.Is(err, syscall.ENOTSUP) || errors.Is(err, syscall.EXDEV) {
		return fmt.Errorf("%w: %v", errCannotClone, err)
	}
	return err
}

// refused turns what the framework says into one sentence.
func refused(err error) error {
	var nserr *vz.NSError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, vz.ErrUnsupportedOSVersion):
		return fmt.Errorf("%w: this macOS is too old for a part of the VM sandbox (macOS %d or later is needed, %d for checkpoints)", ErrUnsupported, MinMacOS, CheckpointMacOS)
	case errors.Is(err, vz.ErrBuildTargetOSVersion):
		return fmt.Errorf("%w: this sandboxdesk was built with an older macOS SDK than the feature needs; build it again with the current Xcode command line tools", ErrUnsupported)
	case errors.As(err, &nserr):
		return explain(nserr.LocalizedDescription)
	}
	return fmt.Errorf("vz: %w", err)
}
