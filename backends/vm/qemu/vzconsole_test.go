//go:build linux

package qemu

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sandboxdesk/backends"
	"sandboxdesk/backends/vm"
	"sandboxdesk/backends/vm/vz"
)

// TestGuestBootsOnVzConsole boots the tiny guest with the kernel command
// line the vz driver gives it and, as vz has, a virtio console as its only
// console (virtio_console is a module the init loads). The init must
// come up and say so on that console: with no console at the kernel's
// start, Go's runtime ends an init started without standard files.
func TestGuestBootsOnVzConsole(t *testing.T) {
	d, err := Find()
	if err != nil {
		t.Skip(err)
	}
	built := filepath.Join(testImages(t), "amd64-tiny")
	data, err := os.ReadFile(filepath.Join(built, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m vm.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	hvc := filepath.Join(dir, "console.log")
	cmdline := vz.Cmdline(m.Cmdline, "vzconsole", backends.NetworkOff)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// KVM where it really boots this kernel here, as the driver decides
	accel := d.Accel(ctx, vm.Image{Dir: built, Manifest: m})
	cmd := exec.CommandContext(ctx, d.Binary, "-machine", "q35", "-accel", accel, "-m", "512",
		"-display", "none", "-monitor", "none", "-serial", "none", "-no-reboot",
		"-kernel", filepath.Join(built, "vmlinuz"), "-initrd", filepath.Join(built, "initrd.gz"), "-append", cmdline,
		"-device", "virtio-serial-pci", "-chardev", "file,id=hvc,path="+hvc, "-device", "virtconsole,chardev=hvc")
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	// a bound on a boot that went wrong, not a measure of speed
	deadline := time.After(3 * time.Minute)
	for {
		got, _ := os.ReadFile(hvc)
		if strings.Contains(string(got), "sandboxdesk-guest: ready: vzconsole") {
			return
		}
		select {
		case err := <-exited:
			// -no-reboot: the kernel's panic (panic=-1) ends QEMU
			t.Fatalf("the machine ended before its init was ready (%v): %s\nvirtio console:\n%s", err, out, got)
		case <-deadline:
			t.Fatalf("the init never said it was ready on the virtio console (%s):\n%s", cmdline, got)
		case <-time.After(200 * time.Millisecond):
		}
	}
}
