//go:build linux

package qemu

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"sandboxdesk/backends"
	"sandboxdesk/backends/vm"
	"sandboxdesk/backends/vm/guest"
)

// overlayDisk is a machine's copy-on-write disk over its image's root.
const overlayDisk = "disk.qcow2"

// Args is QEMU's command line for m, run in m.Dir (its sockets and logs
// are named relative to it).
func Args(m vm.Machine, accel string) []string {
	cpu := "max"
	if accel == "kvm" {
		cpu = "host"
	}
	network := m.Network
	if network == "" {
		network = backends.NetworkOn
	}
	cmdline := strings.TrimSpace(m.Image.Manifest.Cmdline + " sandboxdesk.hostname=" + m.Hostname +
		" sandboxdesk.net=" + string(network) + " sandboxdesk.share=" + guest.DefaultShare + " sandboxdesk.port=" + guest.DefaultPort)
	if m.Image.Manifest.RootDisk != nil {
		// the only disk, on virtio-blk: the guest's first
		cmdline += " sandboxdesk.root=" + guest.RootDevice
	}
	a := []string{
		"-nodefaults", "-no-user-config", "-display", "none", "-no-reboot",
		// QEMU's own seccomp filter: no obsolete calls, no gaining
		// privileges, no scheduler or resource changes. Spawning stays
		// allowed: a checkpoint is written through "exec:cat".
		"-sandbox", "on,obsolete=deny,elevateprivileges=deny,resourcecontrol=deny",
		"-accel", accel, "-cpu", cpu,
	}
	if m.Image.Manifest.Arch == "arm64" {
		// arm64 has no PC: QEMU's generic board, with PCI for the
		// virtio devices and a PL011 serial port (ttyAMA0)
		a = append(a, "-machine", "virt")
	}
	a = append(a,
		"-m", strconv.FormatInt(m.MemoryMiB, 10), "-smp", strconv.Itoa(m.CPUs),
		"-kernel", opt(m.Image.Path(m.Image.Manifest.Kernel)),
		"-initrd", opt(m.Image.Path(m.Image.Manifest.Initrd)),
		"-append", cmdline,
		// the console goes to the controller, which keeps its first
		// consoleCap bytes in the console log (see keepConsole)
		"-chardev", "socket,id=console,path="+consoleSocket+",server=on,wait=off",
		"-serial", "chardev:console",
		"-pidfile", pidFile,
		"-qmp", "unix:"+qmpSocket+",server=on,wait=off",
		"-device", "virtio-serial-pci",
		"-chardev", "socket,id=agent,path="+agentSocket+",server=on,wait=off",
		"-device", "virtserialport,chardev=agent,name="+guest.DefaultPort,
		// mapped-xattr: the guest's owners and modes are attributes, the
		// host files stay the controller's user's, and a link the guest
		// makes is a plain file on the host
		"-fsdev", "local,id=ws,security_model=mapped-xattr,path="+opt(m.Workspace),
		"-device", "virtio-9p-pci,fsdev=ws,mount_tag="+guest.DefaultShare,
	)
	if network != backends.NetworkOff {
		// on: the guest's own route refuses the gateway's address, which
		// slirp maps to the host's loopback; host: it may reach it
		a = append(a, "-netdev", "user,id=net0,ipv6=off", "-device", "virtio-net-pci,netdev=net0")
	}
	if m.Image.Manifest.RootDisk != nil {
		a = append(a, "-drive", "if=virtio,format=qcow2,file="+overlayDisk)
	}
	if m.Restore != "" {
		// QEMU 7.2 has no file: migration; the name is ours and has no
		// character a shell would read
		a = append(a, "-incoming", "exec:cat "+filepath.Base(m.Restore))
	}
	return a
}

// opt escapes a value inside a QEMU option list, where ',' separates.
func opt(s string) string { return strings.ReplaceAll(s, ",", ",,") }

// prepareDisk makes the machine's copy-on-write disk over the image's
// root disk, when it has one.
func (d *Driver) prepareDisk(ctx context.Context, m vm.Machine) error {
	if m.Image.Manifest.RootDisk == nil {
		return nil
	}
	img, err := exec.LookPath("qemu-img")
	if err != nil {
		return fmt.Errorf("qemu-img not found: install the qemu-utils package")
	}
	base := m.Image.Path(*m.Image.Manifest.RootDisk)
	out, err := exec.CommandContext(ctx, img, "create", "-q", "-f", "qcow2", "-F", "raw", "-b", base,
		filepath.Join(m.Dir, overlayDisk)).CombinedOutput()
	if err != nil {
		return fmt.Errorf("qemu-img create: %v: %s", err, out)
	}
	return nil
}
