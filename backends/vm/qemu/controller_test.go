//go:build linux

package qemu

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sandboxdesk/backends"
	"sandboxdesk/backends/testvm"
	"sandboxdesk/backends/vm"
	"sandboxdesk/controller"
	"sandboxdesk/host"
	"sandboxdesk/ipc"
)

// sixteenGiB is the host of DESIGN 3.1's worked example: a budget of
// floor(16 / 2) = 8 GiB.
var sixteenGiB = host.Info{CPUCount: 4, EffectiveCPUCores: 4, TotalMemoryBytes: 16 << 30, AvailableDiskBytes: 100 << 30}

// TestControllerSharesMemoryBetweenRealVMs runs the memory rules of
// DESIGN 3.1–3.3 on real machines under QEMU, on a host measured at the
// worked example's 16 GiB. Every figure the controller counts is checked
// against what QEMU says the machine has. Four boots in all: two VMs
// launched together, a third beside them, and that third again once one
// of the two has stopped.
func TestControllerSharesMemoryBetweenRealVMs(t *testing.T) {
	root := t.TempDir()
	ctx := context.Background()
	vmDir := filepath.Join(root, "vm")
	b := newBackend(t, vmDir)
	one := 1 // one vCPU each: software emulation on a shared host

	// a and b exist, stopped, before the launch: made by a controller
	// over the VM-like test backend (booting nothing), as a person would
	// have made them on an earlier day
	made, err := testvm.New(filepath.Join(root, "made"), testvm.Config{})
	if err != nil {
		t.Fatal(err)
	}
	imgs, err := b.Images(ctx)
	if err != nil {
		t.Fatal(err)
	}
	made.SetImages(imgs)
	c := openOn(t, root, made)
	for _, name := range []string{"a", "b"} {
		if _, err := c.Create(ctx, ipc.CreateRequest{Name: name, Image: "tiny", Network: "off", CPUs: &one}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Stop(ctx, ipc.Ref{Name: name}); err != nil {
			t.Fatal(err)
		}
	}
	c.Close()

	c = openOn(t, root, b)
	defer func() {
		c.RemoveAll(ctx, "")
		c.Close()
	}()
	three := 3 // the Standard recommendation here would run fewer
	if _, err := c.SetLimits(ctx, &three, nil); err != nil {
		t.Fatal(err)
	}
	// held is what the controller counts for name, checked against QMP.
	held := func(name string) int64 {
		t.Helper()
		sb, err := c.Inspect(ctx, ipc.Ref{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		got, err := b.MemoryMiB(ctx, sb.ID)
		if err != nil {
			t.Fatalf("%s: QMP read-back: %v", name, err)
		}
		if got != sb.ReservedMiB {
			t.Errorf("%s: the controller counts %d MiB, QEMU says the machine has %d", name, sb.ReservedMiB, got)
		}
		if sb.Accel == "" {
			t.Errorf("%s: inspect does not say how the VM runs", name)
		}
		return sb.ReservedMiB
	}
	quote := func() int64 {
		t.Helper()
		d, err := c.Defaults(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return d.MemoryMiB
	}

	// DESIGN 3.1, 16 GiB host: "two starting together 4 GiB each"
	if err := c.Launch(ctx, []ipc.Ref{{Name: "a"}, {Name: "b"}}); err != nil {
		t.Fatal(err)
	}
	if a, bb := held("a"), held("b"); a != 4096 || bb != 4096 {
		t.Errorf("launched together: a %d, b %d MiB; want the same share, 4096 each", a, bb)
	}

	// A third beside two holding 4 GiB each: share = floor(8 / 3) = 2 GiB,
	// free = floor((8192 - 8192) / 1024) = 0 GiB, min(share, free) = 0,
	// and "the floor beats the budget" (DESIGN 3.1): 2048 MiB, exactly as
	// the worked example's "beside one holding 8 GiB 2 GiB", where free is
	// also 0. It gets the floor, not a third of the budget.
	if q := quote(); q != 2048 {
		t.Errorf("the quote for a third: %d MiB, want the 2048 floor", q)
	}
	if _, err := c.Create(ctx, ipc.CreateRequest{Name: "c", Image: "tiny", Network: "off", CPUs: &one}); err != nil {
		t.Fatal(err)
	}
	if got := held("c"); got != 2048 {
		t.Errorf("a third beside two holding their shares: %d MiB, want the 2048 floor", got)
	}
	// --network off: the machine has no network device at all
	code, out := execIn(t, c, "c", "ls /sys/class/net")
	if code != 0 || strings.TrimSpace(out) != "lo" {
		t.Errorf("network off: exit %d, interfaces %q; want lo alone", code, out)
	}
	// started in / and not the workspace: a process whose folder is in
	// the share would keep it from being released for the checkpoint
	code, out = execIn(t, c, "c", "cd / && { sleep 1000 >/dev/null 2>&1 & echo $!; } && echo kept > /workspace/c.txt")
	sleeper := strings.TrimSpace(out)
	if code != 0 || sleeper == "" {
		t.Fatalf("background sleep in c: exit %d, %q", code, out)
	}

	// c, then a, stop into checkpoints; with a to keep at most one, the
	// oldest (c's) is dropped at once and its workspace stays (DESIGN 3.3
	// "Retention never deletes a workspace")
	for _, name := range []string{"c", "a"} {
		if sb, err := c.Stop(ctx, ipc.Ref{Name: name}); err != nil || sb.State != ipc.StateSuspended {
			t.Fatalf("stop %s: %s, %v (%s); want suspended with a checkpoint", name, sb.State, err, sb.LastNotice)
		}
	}
	retainOne := 1
	if _, err := c.SetLimits(ctx, &retainOne, &retainOne); err != nil {
		t.Fatal(err)
	}
	sbA, _ := c.Inspect(ctx, ipc.Ref{Name: "a"})
	sbC, _ := c.Inspect(ctx, ipc.Ref{Name: "c"})
	if sbC.State != ipc.StateStopped || sbC.Checkpoint || sbA.State != ipc.StateSuspended || !sbA.Checkpoint {
		t.Errorf("beyond one retained: c %s (checkpoint %v), a %s (checkpoint %v); want c's, the oldest, dropped and a's kept",
			sbC.State, sbC.Checkpoint, sbA.State, sbA.Checkpoint)
	}
	if _, err := os.Stat(filepath.Join(vmDir, sbC.ID, vm.CheckpointFile)); !os.IsNotExist(err) {
		t.Errorf("c's checkpoint file is still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(vmDir, sbA.ID, vm.CheckpointFile)); err != nil {
		t.Errorf("a's checkpoint file: %v", err)
	}
	if data, err := os.ReadFile(filepath.Join(sbC.Workspace, "c.txt")); err != nil || string(data) != "kept\n" {
		t.Errorf("c's workspace after its checkpoint was dropped: %q, %v", data, err)
	}

	// a stopped and handed back its 4 GiB: beside b alone, share =
	// floor(8 / 2) = 4 GiB, free = floor((8192 - 4096) / 1024) = 4 GiB,
	// so the next start gets exactly what a held
	if _, err := c.SetLimits(ctx, &three, nil); err != nil {
		t.Fatal(err)
	}
	if q := quote(); q != 4096 {
		t.Errorf("the quote once a stopped: %d MiB, want a's 4096", q)
	}
	if _, err := c.Create(ctx, ipc.CreateRequest{Name: "c", Image: "tiny", Network: "off", CPUs: &one}); err != nil {
		t.Fatal(err)
	}
	if got := held("c"); got != 4096 {
		t.Errorf("c started after a stopped: %d MiB, want the 4096 a handed back", got)
	}
	// its checkpoint was dropped, so it booted cold: the sleep is gone,
	// the workspace is as it was
	code, out = execIn(t, c, "c", `[ "$(cat /proc/`+sleeper+`/comm 2>/dev/null)" = sleep ] && echo the sleep survived; cat /workspace/c.txt`)
	if code != 0 || out != "kept\n" {
		t.Errorf("c after a cold boot: exit %d, %q; want no sleep and the workspace file", code, out)
	}
}

// openOn opens a controller over root with one backend, named "vm", on
// the worked example's host.
func openOn(t *testing.T, root string, b controller.Backend) *controller.Controller {
	t.Helper()
	c, err := controller.Open(context.Background(), controller.Options{
		Root:           root,
		Backends:       map[string]controller.Backend{vm.Name: b},
		DefaultBackend: vm.Name,
		Measure:        func(context.Context) (host.Info, error) { return sixteenGiB, nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// execIn runs a shell line in a sandbox through the controller.
func execIn(t *testing.T, c *controller.Controller, name, line string) (int, string) {
	t.Helper()
	var out strings.Builder
	code, err := c.Exec(context.Background(), ipc.Ref{Name: name}, backends.ExecRequest{Args: []string{"sh", "-c", line}, Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatalf("%s: %s: %v", name, line, err)
	}
	return code, out.String()
}
