//go:build linux

package qemu

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"sandboxdesk/backends"
	"sandboxdesk/backends/vm"
)

// cpioFile is one file of a newc archive, as the kernel unpacks it.
func cpioFile(name string, mode uint32, data []byte) []byte {
	var b bytes.Buffer
	pad := func() {
		for b.Len()%4 != 0 {
			b.WriteByte(0)
		}
	}
	fmt.Fprintf(&b, "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		1, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(name)+1, 0)
	b.WriteString(name + "\x00")
	pad()
	b.Write(data)
	pad()
	return b.Bytes()
}

// hostileImage is the tiny image with its /init replaced by script: the
// guest's root doing what it likes from the first instruction on. The
// kernel unpacks a second archive after the first, over it.
func hostileImage(t *testing.T, script string) vm.Image {
	t.Helper()
	src := filepath.Join(testImages(t), "amd64-tiny")
	dir := filepath.Join(t.TempDir(), "hostile")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	kernel, err := os.ReadFile(filepath.Join(src, "vmlinuz"))
	if err != nil {
		t.Fatal(err)
	}
	initrd, err := os.ReadFile(filepath.Join(src, "initrd.gz"))
	if err != nil {
		t.Fatal(err)
	}
	// the kernel reads a second archive only at a 4-byte boundary, and
	// skips the zeros before it
	for len(initrd)%4 != 0 {
		initrd = append(initrd, 0)
	}
	initrd = append(initrd, cpioFile("init", 0o100755, []byte(script))...)
	initrd = append(initrd, cpioFile("TRAILER!!!", 0, nil)...)
	file := func(name string, data []byte) vm.File {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		return vm.File{File: name, SHA256: hex.EncodeToString(sum[:])}
	}
	m := vm.Manifest{Name: "hostile", Arch: "amd64", Flavor: "tiny", Cmdline: "console=ttyS0 quiet panic=-1",
		Kernel: file("vmlinuz", kernel), Initrd: file("initrd.gz", initrd)}
	data, _ := json.Marshal(m)
	sum := sha256.Sum256(data)
	return vm.Image{Dir: dir, Manifest: m, Digest: "sha256:" + hex.EncodeToString(sum[:])}
}

// TestHostileConsoleFlood: guest root writes without end to the serial
// console, which QEMU kept in a file of the sandbox's folder: the host's
// disk filled at the guest's pace. The console log stops at its cap.
func TestHostileConsoleFlood(t *testing.T) {
	d, err := Find()
	if err != nil {
		t.Skip(err)
	}
	const flood = 4 * consoleCap
	img := hostileImage(t, fmt.Sprintf(`#!/bin/sh
/bin/busybox mount -t devtmpfs dev /dev
/bin/busybox head -c %d /dev/zero | /bin/busybox tr '\0' x > /dev/ttyS0
/bin/busybox poweroff -f
`, flood))
	dir := filepath.Join(t.TempDir(), "flood")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	h, err := d.Boot(ctx, vm.Machine{Dir: dir, Image: img, MemoryMiB: 256, CPUs: 1, Hostname: "flood",
		Workspace: t.TempDir(), Network: backends.NetworkOff})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	defer h.Kill(ctx)
	select {
	case <-h.Exited():
	case <-time.After(5 * time.Minute):
		t.Fatalf("the hostile guest never powered off: %s", tail(filepath.Join(dir, vm.ConsoleLog)))
	}
	h.Close()
	st, err := os.Stat(filepath.Join(dir, vm.ConsoleLog))
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() > consoleCap+4096 {
		t.Errorf("the console log holds %d bytes of a %d-byte flood; its cap is %d", st.Size(), flood, consoleCap)
	}
	if st.Size() < consoleCap {
		t.Errorf("the console log holds %d bytes of a %d-byte flood: the first %d should be kept", st.Size(), flood, consoleCap)
	}
}
