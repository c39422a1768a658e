// Package vz is the VM backend's driver for Apple's Virtualization.framework
// on macOS (through github.com/Code-Hex/vz): a Linux machine booted from
// the image's kernel and initrd, its root disk a clone of the image's raw
// disk, the workspace shared over virtio-fs, the agent over vsock, NAT
// networking or none, the console in the sandbox's folder, and saved
// machine state as the checkpoint on macOS 14 and later on Apple silicon.
//
// Its machines live in the process that booted them: the app (or
// `sandboxdesk serve`) owns them, stops or saves them when it quits, and
// a machine of a process that died is gone, for the controller to
// reconcile.
//
// What a machine is made of is decided here, in plain Go, by Configure;
// the darwin files only hand that description to the framework.
package vz

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"sandboxdesk/backends"
	"sandboxdesk/backends/vm"
	"sandboxdesk/backends/vm/guest"
)

// Name is the driver's name in records and inspect.
const Name = "vz"

// Files in a machine's folder, beside the core's.
const (
	// RootDisk is the sandbox's own copy of the image's raw root disk.
	RootDisk = "disk.raw"
)

// Limits are the memory and CPUs VZVirtualMachineConfiguration allows on
// this Mac (its minimum and maximum allowed sizes and counts).
type Limits struct {
	MinMemoryMiB, MaxMemoryMiB int64
	MinCPUs, MaxCPUs           int
}

// Config describes one machine for Virtualization.framework, field by
// field what the darwin driver hands it.
type Config struct {
	// MemoryMiB and CPUs are what the machine is built with: the
	// controller's decision, clamped to Limits.
	MemoryMiB int64
	CPUs      int
	// Kernel, Initrd and Cmdline feed VZLinuxBootLoader.
	Kernel  string
	Initrd  string
	Cmdline string
	// Disks are virtio-blk devices, in order (the first is /dev/vda).
	Disks []Disk
	// Shares are virtio-fs devices, each a single folder under a tag.
	Shares []Share
	// NAT: one virtio-net device behind the framework's NAT; none when
	// false (--network off).
	NAT bool
	// VsockPort is where the guest's agent listens, on the machine's
	// virtio-vsock device.
	VsockPort uint32
	// ConsoleLog receives the guest's console (virtio console, hvc0).
	ConsoleLog string
	// Identity holds the generic machine identifier, made when missing.
	Identity string
	// Entropy: a virtio-rng device, so the guest's random numbers do not
	// wait on a machine with no other source.
	Entropy bool
	// Restore, when set, is the saved state the machine resumes from
	// instead of booting.
	Restore string
}

// Disk is one virtio-blk device over a raw file.
type Disk struct {
	Path     string
	ReadOnly bool
}

// Share is one virtio-fs device.
type Share struct {
	Tag      string
	Path     string
	ReadOnly bool
}

// Fit clamps memory and CPUs to what the framework allows, so that a
// configuration never fails to validate for its size and the memory
// reported is the memory built. A bound of 0 is no bound.
func Fit(memoryMiB int64, cpus int, lim Limits) (int64, int) {
	if lim.MaxMemoryMiB > 0 && memoryMiB > lim.MaxMemoryMiB {
		memoryMiB = lim.MaxMemoryMiB
	}
	if memoryMiB < lim.MinMemoryMiB {
		memoryMiB = lim.MinMemoryMiB
	}
	if lim.MaxCPUs > 0 && cpus > lim.MaxCPUs {
		cpus = lim.MaxCPUs
	}
	cpus = max(cpus, lim.MinCPUs, 1)
	return memoryMiB, cpus
}

// Configure maps a machine to its description for the framework.
func Configure(m vm.Machine, lim Limits) (Config, error) {
	if m.Dir == "" || m.Workspace == "" {
		return Config{}, errors.New("vz: a machine needs its folder and a workspace")
	}
	if !guest.ValidHostname(m.Hostname) {
		return Config{}, fmt.Errorf("vz: %q cannot be a hostname", m.Hostname)
	}
	mem, cpus := Fit(m.MemoryMiB, m.CPUs, lim)
	network := m.Network
	if network == "" {
		network = backends.NetworkOn
	}
	c := Config{
		MemoryMiB:  mem,
		CPUs:       cpus,
		Kernel:     m.Image.Path(m.Image.Manifest.Kernel),
		Initrd:     m.Image.Path(m.Image.Manifest.Initrd),
		Cmdline:    Cmdline(m.Image.Manifest.Cmdline, m.Hostname, network),
		Shares:     []Share{{Tag: guest.DefaultShare, Path: m.Workspace}},
		NAT:        network != backends.NetworkOff,
		VsockPort:  guest.DefaultVsockPort,
		ConsoleLog: filepath.Join(m.Dir, vm.ConsoleLog),
		Identity:   filepath.Join(m.Dir, vm.IdentityFile),
		Entropy:    true,
	}
	if m.Image.Manifest.RootDisk != nil {
		c.Disks = []Disk{{Path: filepath.Join(m.Dir, RootDisk)}}
		// the init switches to the disk the host attaches, as under qemu
		c.Cmdline += " sandboxdesk.root=" + guest.RootDevice
	}
	if m.Restore != "" {
		c.Restore = filepath.Join(m.Dir, filepath.Base(m.Restore))
	}
	return c, nil
}

// Cmdline is the kernel command line under vz: the image's own with its
// console moved to the virtio console (vz has no UART), then what the
// guest's init reads: the share is virtio-fs, the agent is on vsock, the
// network's address is leased.
func Cmdline(image, hostname string, network backends.Network) string {
	var out []string
	for _, f := range strings.Fields(image) {
		if !strings.HasPrefix(f, "console=") {
			out = append(out, f)
		}
	}
	out = append(out, "console=hvc0",
		"sandboxdesk.hostname="+hostname,
		"sandboxdesk.net="+string(network),
		"sandboxdesk.share="+guest.DefaultShare,
		"sandboxdesk.sharefs="+guest.ShareFSVirtio,
		"sandboxdesk.vsock="+strconv.FormatUint(uint64(guest.DefaultVsockPort), 10))
	if network != backends.NetworkOff {
		out = append(out, "sandboxdesk.dhcp=1")
	}
	return strings.Join(out, " ")
}
