//go:build linux

package qemu

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sandboxdesk/backends"
	"sandboxdesk/backends/vm"
)

// guestDirEnv names the folder of images built by `make guest-image`;
// `make vm-test` sets it. The guests below take minutes to boot under
// software emulation, so they run there and not in `make test`.
const guestDirEnv = "SANDBOXDESK_GUEST_DIR"

// builtBackend is a VM backend over the built image arch-flavor, or a skip
// saying what is missing.
func builtBackend(t *testing.T, arch, flavor string) *vm.Backend {
	t.Helper()
	dir := os.Getenv(guestDirEnv)
	if dir == "" {
		t.Skipf("%s is not set: `make vm-test` builds the %s %s image and boots it", guestDirEnv, arch, flavor)
	}
	if _, err := os.Stat(filepath.Join(dir, arch+"-"+flavor, "manifest.json")); err != nil {
		t.Skipf("no %s %s image in %s (make guest-image ARCH=%s FLAVOR=%s)", arch, flavor, dir, arch, flavor)
	}
	if _, err := findSystem(arch); err != nil {
		t.Skipf("%v (make deps)", err)
	}
	d, err := Find()
	if err != nil {
		t.Skip(err)
	}
	b, err := vm.New(vm.Config{Dir: t.TempDir(), Images: dir, Arch: arch, Driver: d, BootTimeout: 10 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	b.SetNotify(func(_ context.Context, e backends.Event) { t.Logf("%s: %s", e.ID, e.Message) })
	return b
}

// bootAndRun starts image in b and checks each command's exit status and
// the start of its output, then stops the machine.
func bootAndRun(t *testing.T, b *vm.Backend, image string, cmds []struct {
	args []string
	out  string
}) {
	t.Helper()
	ctx := context.Background()
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "from-host.txt"), []byte("written on the host\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := backends.Spec{ID: "g1", Name: "guest-test", Image: backends.Image{Name: image}, Workspace: ws, Network: backends.NetworkOn, MemoryMiB: 1024}
	started, err := b.Start(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Remove(ctx, "g1")
	if got, err := b.MemoryMiB(ctx, "g1"); err != nil || got != started.ReservedMiB {
		t.Errorf("QMP reads back %d MiB (%v), reserved %d", got, err, started.ReservedMiB)
	}
	for _, c := range cmds {
		code, out := run(t, b, "g1", backends.ExecRequest{Args: c.args, Stdin: strings.NewReader("")})
		if code != 0 || !strings.HasPrefix(out, c.out) {
			t.Errorf("%q: exit %d, output %q; want 0 and %q first", c.args, code, out, c.out)
		}
	}
	// with nothing running it may stop into a checkpoint: either is a stop
	if _, err := b.Stop(ctx, "g1", 20*time.Second); err != nil {
		t.Fatalf("stop: %v", err)
	}
}

// TestBootArm64Tiny boots the arm64 tiny image under qemu-system-aarch64
// (emulated on another host) to a working agent.
func TestBootArm64Tiny(t *testing.T) {
	b := builtBackend(t, "arm64", "tiny")
	bootAndRun(t, b, "tiny", []struct {
		args []string
		out  string
	}{
		{[]string{"uname", "-m"}, "aarch64\n"},
		{[]string{"id", "-u"}, "1000\n"},
		{[]string{"hostname"}, "guest-test\n"},
		{[]string{"cat", "/workspace/from-host.txt"}, "written on the host\n"},
		{[]string{"sh", "-c", "echo from the guest > /workspace/from-guest.txt && cat /workspace/from-guest.txt"}, "from the guest\n"},
	})
}

// TestBootDebian boots the debian image from its root disk (a qcow2
// overlay over rootfs.ext4) and runs what a coding agent expects.
func TestBootDebian(t *testing.T) {
	b := builtBackend(t, "amd64", "debian")
	bootAndRun(t, b, "debian", []struct {
		args []string
		out  string
	}{
		{[]string{"git", "--version"}, "git version "},
		{[]string{"python3", "-c", "print(1)"}, "1\n"},
		{[]string{"gcc", "--version"}, "gcc "},
		// the root is the disk, not the initrd
		{[]string{"sh", "-c", "findmnt -n -o SOURCE,FSTYPE /"}, "/dev/vda ext4\n"},
		{[]string{"sh", "-c", "head -1 /etc/os-release"}, `PRETTY_NAME="Debian GNU/Linux`},
		{[]string{"id", "-un"}, "user\n"},
		{[]string{"cat", "/workspace/from-host.txt"}, "written on the host\n"},
		// a program built in the guest, written to the workspace, runs
		{[]string{"sh", "-c", "printf 'int main(void){return 0;}' > t.c && gcc -o t t.c && ./t && echo built"}, "built\n"},
	})
}
