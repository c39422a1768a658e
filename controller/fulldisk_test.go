//go:build linux

package controller

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"sandboxdesk/backends/testvm"
	"sandboxdesk/host"
	"sandboxdesk/ipc"
)

// smallRoot mounts a 64 MiB tmpfs for a root, or skips saying why.
func smallRoot(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a 64 MiB tmpfs needs root")
	}
	root := t.TempDir()
	if err := syscall.Mount("tmpfs", root, "tmpfs", 0, "size=64m"); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(root, syscall.MNT_DETACH) })
	return root
}

// fill writes into dir until the disk is full.
func fill(t *testing.T, dir string) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, "fill"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 1<<20)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("filling the disk: %v", err)
			}
			break
		}
	}
	// the last blocks too, in small writes
	for small := make([]byte, 512); ; {
		if _, err := f.Write(small); err != nil {
			break
		}
	}
}

// TestSmallFullDisk: on a root of 64 MiB the controller starts; filled
// from inside a sandbox, list, stop and rm still work or say clearly what
// is wrong, and the store stays consistent across a restart.
func TestSmallFullDisk(t *testing.T) {
	root := smallRoot(t)
	vmDir := t.TempDir() // the "VMs" live elsewhere, as a hypervisor's do
	open := func() *Controller {
		vm, err := testvm.New(vmDir, testvm.Config{})
		if err != nil {
			t.Fatal(err)
		}
		c, err := Open(t.Context(), Options{Root: root, Backends: map[string]Backend{testvm.Name: vm}, DefaultBackend: testvm.Name,
			Measure: func(ctx context.Context) (host.Info, error) {
				// the real free space of the small root
				info, err := host.Measure(ctx, root)
				info.CPUCount, info.EffectiveCPUCores, info.TotalMemoryBytes = 8, 8, 16<<30
				return info, err
			}})
		if err != nil {
			t.Fatalf("open on a small root: %v", err)
		}
		return c
	}
	c := open()
	ctx := t.Context()
	for _, n := range []string{"a", "b"} {
		if _, err := c.Create(ctx, ipc.CreateRequest{Name: n}); err != nil {
			t.Fatal(err)
		}
	}
	fill(t, c.workspace("a")) // as a process in sandbox a would

	if list, err := c.List(ctx, ""); err != nil || len(list) != 2 {
		t.Fatalf("list on a full disk: %v, %v", list, err)
	}
	if sb, err := c.Stop(ctx, ipc.Ref{Name: "a"}); err != nil || sb.State != ipc.StateStopped {
		t.Errorf("stop on a full disk: %+v, %v", sb, err)
	}
	// b, still running, eats what the reserve freed: the next writes
	// find nothing at all
	fill(t, c.workspace("b"))
	_, err := c.Create(ctx, ipc.CreateRequest{Name: "c"})
	if err == nil || !strings.Contains(err.Error(), "the disk is full") || !strings.Contains(err.Error(), root) {
		t.Errorf("create on a full disk: %v, want a message naming the full folder", err)
	}
	t.Logf("create on a full disk says: %v", err)
	if c.get("c") != nil {
		t.Error("a failed create left a row")
	}
	if sb, err := c.Stop(ctx, ipc.Ref{Name: "b"}); err != nil || sb.State != ipc.StateStopped {
		t.Errorf("stop on a full disk with its reserve spent: %+v, %v", sb, err)
	}
	if ok, err := c.Remove(ctx, ipc.Ref{Name: "b"}); err != nil || !ok {
		t.Errorf("rm on a full disk with its reserve spent: %v, %v", ok, err)
	}
	c.Close()

	c = open() // a restart on the full disk
	defer c.Close()
	list, err := c.List(ctx, "")
	if err != nil || len(list) != 1 || list[0].Name != "a" || list[0].State != ipc.StateStopped {
		t.Fatalf("after a restart on a full disk: %+v, %v", list, err)
	}
	if _, err := os.Stat(filepath.Join(c.workspace("a"), "fill")); err != nil {
		t.Errorf("a's workspace: %v", err)
	}
	if ok, err := c.Remove(ctx, ipc.Ref{Name: "a"}); err != nil || !ok {
		t.Errorf("rm of the sandbox that filled the disk: %v, %v", ok, err)
	}
	if _, err := c.Create(ctx, ipc.CreateRequest{Name: "c"}); err != nil {
		t.Errorf("create once space is free again: %v", err)
	}
}
