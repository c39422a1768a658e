//go:build linux

package qemu

import (
	"context"
	"os"
	"os/exec"
	"time"
)

// kvmWorks boots kernel under KVM and waits for its first console byte.
// /dev/kvm may be there and open, and still hang the first instruction
// of a real kernel (nested virtualisation switched off): only a boot
// tells. The probe is a child process, killed when it takes too long, so
// a hang never reaches the controller.
func kvmWorks(ctx context.Context, qemu, kernel string, wait time.Duration) bool {
	f, err := os.OpenFile("/dev/kvm", os.O_RDWR, 0)
	if err != nil {
		return false
	}
	f.Close()
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	cmd := exec.CommandContext(ctx, qemu, "-accel", "kvm", "-nodefaults", "-no-user-config", "-display", "none",
		"-no-reboot", "-m", "128", "-kernel", kernel, "-append", "console=ttyS0 panic=-1", "-serial", "stdio")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return false
	}
	if err := cmd.Start(); err != nil {
		return false
	}
	got := make(chan bool, 1)
	go func() {
		var b [1]byte
		n, _ := out.Read(b[:])
		got <- n == 1
	}()
	var ok bool
	select {
	case ok = <-got:
	case <-ctx.Done():
	}
	cmd.Process.Kill()
	cmd.Wait()
	return ok
}
