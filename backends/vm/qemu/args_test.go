//go:build linux

package qemu

import (
	"slices"
	"strings"
	"testing"

	"sandboxdesk/backends"
	"sandboxdesk/backends/vm"
)

func TestArgs(t *testing.T) {
	img := vm.Image{Dir: "/images/tiny", Manifest: vm.Manifest{Arch: "amd64", Kernel: vm.File{File: "vmlinuz"}, Initrd: vm.File{File: "initrd.gz"}, Cmdline: "console=ttyS0"}}
	arm := vm.Image{Dir: "/images/arm64-tiny", Manifest: vm.Manifest{Arch: "arm64", Kernel: vm.File{File: "Image"}, Initrd: vm.File{File: "initrd.gz"}, Cmdline: "console=ttyAMA0"}}
	debian := vm.Image{Dir: "/images/debian", Manifest: vm.Manifest{Arch: "amd64", Kernel: vm.File{File: "vmlinuz"}, Initrd: vm.File{File: "initrd.gz"},
		RootDisk: &vm.File{File: "rootfs.ext4"}, Cmdline: "console=ttyS0"}}
	tests := []struct {
		name    string
		m       vm.Machine
		accel   string
		has     [][2]string // option, value
		hasNot  []string
		cmdline string
	}{
		{"network on", vm.Machine{Image: img, MemoryMiB: 2048, CPUs: 2, Hostname: "web", Workspace: "/ws", Network: backends.NetworkOn}, "tcg",
			[][2]string{{"-m", "2048"}, {"-smp", "2"}, {"-accel", "tcg"}, {"-cpu", "max"}, {"-netdev", "user,id=net0,ipv6=off"},
				{"-fsdev", "local,id=ws,security_model=mapped-xattr,path=/ws"}, {"-kernel", "/images/tiny/vmlinuz"}},
			[]string{"-incoming", "-drive"}, "console=ttyS0 sandboxdesk.hostname=web sandboxdesk.net=on"},
		{"network off", vm.Machine{Image: img, MemoryMiB: 1024, CPUs: 1, Hostname: "sandbox", Workspace: "/ws", Network: backends.NetworkOff}, "kvm",
			[][2]string{{"-accel", "kvm"}, {"-cpu", "host"}}, []string{"-netdev"}, "sandboxdesk.net=off"},
		// a comma in a path is escaped, never a new option
		{"comma in the workspace", vm.Machine{Image: img, MemoryMiB: 1024, CPUs: 1, Hostname: "x", Workspace: "/a,b=c"}, "tcg",
			[][2]string{{"-fsdev", "local,id=ws,security_model=mapped-xattr,path=/a,,b=c"}}, nil, ""},
		// arm64 has no PC: the generic board, its kernel the Image
		{"arm64", vm.Machine{Image: arm, MemoryMiB: 1024, CPUs: 2, Hostname: "x", Workspace: "/ws"}, "tcg",
			[][2]string{{"-machine", "virt"}, {"-cpu", "max"}, {"-kernel", "/images/arm64-tiny/Image"}}, []string{"-drive"}, "console=ttyAMA0"},
		{"amd64 is a PC", vm.Machine{Image: img, MemoryMiB: 1024, CPUs: 1, Hostname: "x", Workspace: "/ws"}, "tcg",
			nil, []string{"-machine"}, ""},
		// a root disk: the overlay on virtio-blk, and the guest told to
		// switch to it
		{"root disk", vm.Machine{Image: debian, MemoryMiB: 1024, CPUs: 1, Hostname: "x", Workspace: "/ws"}, "tcg",
			[][2]string{{"-drive", "if=virtio,format=qcow2,file=disk.qcow2"}}, nil, "sandboxdesk.root=/dev/vda"},
		{"restore", vm.Machine{Image: img, MemoryMiB: 1024, CPUs: 1, Hostname: "x", Workspace: "/ws", Restore: "checkpoint"}, "tcg",
			[][2]string{{"-incoming", "exec:cat checkpoint"}}, nil, ""},
	}
	for _, tt := range tests {
		a := Args(tt.m, tt.accel)
		for _, kv := range tt.has {
			i := slices.Index(a, kv[0])
			for i >= 0 && i+1 < len(a) && a[i+1] != kv[1] {
				j := slices.Index(a[i+1:], kv[0])
				if j < 0 {
					i = -1
					break
				}
				i += 1 + j
			}
			if i < 0 {
				t.Errorf("%s: no %s %s in %q", tt.name, kv[0], kv[1], a)
			}
		}
		for _, opt := range tt.hasNot {
			if slices.Contains(a, opt) {
				t.Errorf("%s: %s in %q", tt.name, opt, a)
			}
		}
		if i := slices.Index(a, "-append"); i < 0 || !strings.Contains(a[i+1], tt.cmdline) {
			t.Errorf("%s: kernel command line %q, want %q in it", tt.name, a[i+1], tt.cmdline)
		}
	}
}
