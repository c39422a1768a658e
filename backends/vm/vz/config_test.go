package vz

import (
	"path/filepath"
	"reflect"
	"testing"

	"sandboxdesk/backends"
	"sandboxdesk/backends/vm"
)

// mac is the bounds of an 8-core Mac with 16 GiB, the shape the
// framework reports (its minimum memory, a maximum below the host's, one
// CPU up to the host's count).
var mac = Limits{MinMemoryMiB: 128, MaxMemoryMiB: 14336, MinCPUs: 1, MaxCPUs: 8}

// arm64 is the tiny arm64 image as `make guest-image` writes it.
var arm64 = vm.Image{Dir: filepath.FromSlash("/images/arm64-tiny"), Manifest: vm.Manifest{Name: "tiny", Arch: "arm64", Flavor: "tiny",
	Kernel: vm.File{File: "vmlinuz"}, Initrd: vm.File{File: "initrd.gz"}, Cmdline: "console=ttyS0 quiet panic=-1"}}

func TestConfigure(t *testing.T) {
	dir, ws := filepath.FromSlash("/sandboxes/vm/s1"), filepath.FromSlash("/Users/zoe/work/web")
	p := filepath.FromSlash
	machine := func(mem int64, cpus int, network backends.Network) vm.Machine {
		return vm.Machine{Dir: dir, Image: arm64, MemoryMiB: mem, CPUs: cpus, Hostname: "web", Workspace: ws, Network: network}
	}
	withNAT := "quiet panic=-1 console=hvc0 sandboxdesk.hostname=web sandboxdesk.net=on sandboxdesk.share=workspace sandboxdesk.sharefs=virtiofs sandboxdesk.vsock=6123 sandboxdesk.dhcp=1"
	base := Config{
		Kernel: p("/images/arm64-tiny/vmlinuz"), Initrd: p("/images/arm64-tiny/initrd.gz"), Cmdline: withNAT,
		Shares:    []Share{{Tag: "workspace", Path: ws}},
		NAT:       true,
		VsockPort: 6123, ConsoleLog: p("/sandboxes/vm/s1/console.log"), Identity: p("/sandboxes/vm/s1/machine-id"), Entropy: true,
	}
	sized := func(c Config, mem int64, cpus int) Config { c.MemoryMiB, c.CPUs = mem, cpus; return c }
	off := sized(base, 4096, 2)
	off.NAT = false
	off.Cmdline = "quiet panic=-1 console=hvc0 sandboxdesk.hostname=web sandboxdesk.net=off sandboxdesk.share=workspace sandboxdesk.sharefs=virtiofs sandboxdesk.vsock=6123"
	tests := []struct {
		name string
		m    vm.Machine
		lim  Limits
		want Config
	}{
		{"a default sandbox: 4 GiB, 2 CPUs, network on", machine(4096, 2, backends.NetworkOn), mac, sized(base, 4096, 2)},
		{"network unset is on", machine(4096, 2, ""), mac, sized(base, 4096, 2)},
		{"a 1 GiB one", machine(1024, 2, backends.NetworkOn), mac, sized(base, 1024, 2)},
		{"a one-CPU one", machine(4096, 1, backends.NetworkOn), mac, sized(base, 4096, 1)},
		{"--network off: no network device, no lease", machine(4096, 2, backends.NetworkOff), mac, off},
		{"more memory than the Mac allows: its maximum", machine(32768, 2, backends.NetworkOn), mac, sized(base, 14336, 2)},
		{"more CPUs than it has: its count", machine(4096, 12, backends.NetworkOn), mac, sized(base, 4096, 8)},
		{"less than its minimum: the minimum", machine(64, 0, backends.NetworkOn), mac, sized(base, 128, 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Configure(tt.m, tt.lim)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

func TestConfigureDiskAndRestore(t *testing.T) {
	img := arm64
	img.Manifest.RootDisk = &vm.File{File: "root.raw"}
	img.Manifest.Cmdline = "console=ttyS0 root=/dev/vda rw"
	p := filepath.FromSlash
	m := vm.Machine{Dir: p("/sb/s2"), Image: img, MemoryMiB: 2048, CPUs: 2, Hostname: "db", Workspace: "/ws", Network: backends.NetworkHost, Restore: "checkpoint"}
	got, err := Configure(m, mac)
	if err != nil {
		t.Fatal(err)
	}
	if want := []Disk{{Path: p("/sb/s2/disk.raw")}}; !reflect.DeepEqual(got.Disks, want) {
		t.Errorf("disks %+v, want %+v (the sandbox's clone, never the image's disk)", got.Disks, want)
	}
	if got.Restore != p("/sb/s2/checkpoint") {
		t.Errorf("restore from %q", got.Restore)
	}
	if want := "root=/dev/vda rw console=hvc0 sandboxdesk.hostname=db sandboxdesk.net=host sandboxdesk.share=workspace sandboxdesk.sharefs=virtiofs sandboxdesk.vsock=6123 sandboxdesk.dhcp=1 sandboxdesk.root=/dev/vda"; got.Cmdline != want {
		t.Errorf("cmdline\n%s\nwant\n%s", got.Cmdline, want)
	}
}

func TestConfigureRefuses(t *testing.T) {
	for _, m := range []vm.Machine{
		{Dir: "/sb/s1", Image: arm64, MemoryMiB: 1024, CPUs: 1, Hostname: "a b", Workspace: "/ws"},
		{Dir: "/sb/s1", Image: arm64, MemoryMiB: 1024, CPUs: 1, Hostname: "web"},
	} {
		if c, err := Configure(m, mac); err == nil {
			t.Errorf("%+v: configured %+v", m, c)
		}
	}
}

func TestFit(t *testing.T) {
	tests := []struct {
		name     string
		mem      int64
		cpus     int
		lim      Limits
		wantMem  int64
		wantCPUs int
	}{
		{"inside", 8192, 4, mac, 8192, 4},
		{"at the bounds", 14336, 8, mac, 14336, 8},
		{"above", 16384, 10, mac, 14336, 8},
		{"below", 100, 0, mac, 128, 1},
		{"no bounds known", 4096, 2, Limits{}, 4096, 2},
	}
	for _, tt := range tests {
		if mem, cpus := Fit(tt.mem, tt.cpus, tt.lim); mem != tt.wantMem || cpus != tt.wantCPUs {
			t.Errorf("%s: %d MiB, %d CPUs; want %d, %d", tt.name, mem, cpus, tt.wantMem, tt.wantCPUs)
		}
	}
}
