package controller

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"sandboxdesk/backends"
	"sandboxdesk/backends/testvm"
	"sandboxdesk/host"
	"sandboxdesk/ipc"
)

// twoBackends is a controller offering a process backend ("procs", the
// default, as bubblewrap is on Linux) and a VM backend ("vm") that says it
// runs under software emulation, as qemu does on a host without KVM.
type twoBackends struct {
	c           *Controller
	procs, vm   *testvm.Backend
	measureHost host.Info
}

func openTwoBackends(t *testing.T, root string) *twoBackends {
	t.Helper()
	tb := &twoBackends{measureHost: host.Info{CPUCount: 8, EffectiveCPUCores: 8, TotalMemoryBytes: 16 << 30, AvailableDiskBytes: 200 << 30}}
	var err error
	if tb.procs, err = testvm.New(filepath.Join(root, "procs"), testvm.Config{Processes: true}); err != nil {
		t.Fatal(err)
	}
	if tb.vm, err = testvm.New(filepath.Join(root, "vm"), testvm.Config{Accel: "tcg"}); err != nil {
		t.Fatal(err)
	}
	tb.vm.SetImages([]backends.Image{
		{Name: "debian", Digest: "sha256:" + strings.Repeat("d", 64)},
		{Name: "base", Digest: testvm.DefaultImages[0].Digest},
	})
	tb.c, err = Open(t.Context(), Options{
		Root:           root,
		Backends:       map[string]Backend{"procs": tb.procs, "vm": tb.vm},
		DefaultBackend: "procs",
		Measure:        func(context.Context) (host.Info, error) { return tb.measureHost, nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tb.c.Close() })
	return tb
}

// Ranges come per backend kind, with the backend's own images (its
// default first) and every backend named, the default first.
func TestRangesPerBackend(t *testing.T) {
	tb := openTwoBackends(t, t.TempDir())
	tests := []struct {
		ask        string
		wantName   string
		wantVM     bool
		wantMemMin int64
		wantImages []string
	}{
		{ask: "", wantName: "procs", wantVM: false, wantMemMin: 64, wantImages: []string{"base", "python"}},
		{ask: "procs", wantName: "procs", wantVM: false, wantMemMin: 64, wantImages: []string{"base", "python"}},
		// a VM from 1 GiB; "base" is its default image, so it comes first
		{ask: "vm", wantName: "vm", wantVM: true, wantMemMin: 1024, wantImages: []string{"base", "debian"}},
	}
	for _, tt := range tests {
		r, err := tb.c.RangesOf(t.Context(), tt.ask)
		if err != nil {
			t.Fatalf("ranges %q: %v", tt.ask, err)
		}
		if r.Backend != tt.wantName || r.VM != tt.wantVM || r.MemoryMiB.Min != tt.wantMemMin {
			t.Errorf("ranges %q: backend %s vm %v memory from %d; want %s %v %d", tt.ask, r.Backend, r.VM, r.MemoryMiB.Min, tt.wantName, tt.wantVM, tt.wantMemMin)
		}
		if !reflect.DeepEqual(r.Images, tt.wantImages) {
			t.Errorf("ranges %q: images %v, want %v", tt.ask, r.Images, tt.wantImages)
		}
		if want := []string{"procs", "vm"}; !reflect.DeepEqual(r.Backends, want) {
			t.Errorf("ranges %q: backends %v, want %v", tt.ask, r.Backends, want)
		}
	}
	if _, err := tb.c.RangesOf(t.Context(), "wsl"); !errors.Is(err, ipc.ErrInvalid) {
		t.Errorf("ranges of a backend this controller lacks: %v, want invalid", err)
	}
}

// A create names its backend; the memory it may ask follows the
// backend's kind, and the same name on another backend is another shape:
// rebuilt there, the workspace kept.
func TestCreateChoosesTheBackend(t *testing.T) {
	ctx := t.Context()
	tb := openTwoBackends(t, t.TempDir())
	small := int64(512)

	// 512 MiB is a fine limit for host processes, too little for a VM
	if _, err := tb.c.Create(ctx, ipc.CreateRequest{Name: "w", Backend: "vm", MemoryMiB: &small}); !errors.Is(err, ipc.ErrInvalid) {
		t.Fatalf("a VM of 512 MiB: %v, want refused as invalid", err)
	}
	if _, err := tb.c.Create(ctx, ipc.CreateRequest{Name: "w", Backend: "teapot"}); !errors.Is(err, ipc.ErrInvalid) {
		t.Fatalf("an unknown backend: %v, want refused as invalid", err)
	}
	procs, err := tb.c.Create(ctx, ipc.CreateRequest{Name: "w", MemoryMiB: &small})
	if err != nil {
		t.Fatal(err)
	}
	if procs.Backend != "procs" || procs.MemoryLimitMiB != 512 || procs.ReservedMiB != 0 || procs.Accel != "" {
		t.Errorf("on the default backend: %s, limit %d, reserved %d, accel %q; want procs with a 512 MiB limit, nothing reserved, no accel",
			procs.Backend, procs.MemoryLimitMiB, procs.ReservedMiB, procs.Accel)
	}
	if err := os.WriteFile(filepath.Join(tb.c.workspace("w"), "kept.txt"), []byte("from procs"), 0o600); err != nil {
		t.Fatal(err)
	}

	vm, err := tb.c.Create(ctx, ipc.CreateRequest{Name: "w", Backend: "vm", Image: "debian"})
	if err != nil {
		t.Fatal(err)
	}
	// alone on 16 GiB: a VM takes the whole 8 GiB budget (DESIGN 3.1)
	if vm.ID == procs.ID || vm.Backend != "vm" || vm.ReservedMiB != 8192 || vm.Accel != "tcg" {
		t.Errorf("asked on the vm backend: id %s (was %s), %s, reserved %d, accel %q; want rebuilt as a VM holding 8192 under tcg",
			vm.ID, procs.ID, vm.Backend, vm.ReservedMiB, vm.Accel)
	}
	if tb.procs.Reserved(procs.ID) != 0 {
		t.Error("the process sandbox still runs after its rebuild as a VM")
	}
	if got, err := os.ReadFile(filepath.Join(tb.c.workspace("w"), "kept.txt")); err != nil || string(got) != "from procs" {
		t.Errorf("the workspace after a rebuild on another backend: %q, %v", got, err)
	}
	// the same ask again, on the same backend, is served as it is
	again, err := tb.c.Create(ctx, ipc.CreateRequest{Name: "w", Backend: "vm", Image: "debian"})
	if err != nil || again.ID != vm.ID {
		t.Errorf("asked again on vm: id %s, %v; want reused %s", again.ID, err, vm.ID)
	}

	stopped, err := tb.c.Stop(ctx, ipc.Ref{Name: "w"})
	if err != nil {
		t.Fatal(err)
	}
	if stopped.Accel != "" || stopped.ReservedMiB != 0 {
		t.Errorf("stopped: accel %q, reserved %d; a stopped VM runs under nothing and holds nothing", stopped.Accel, stopped.ReservedMiB)
	}
}

// A controller that restarts hears how an adopted VM runs from the
// backend again: the figure is never stored.
func TestAccelHeardAgainAfterARestart(t *testing.T) {
	root := t.TempDir()
	tb := openTwoBackends(t, root)
	if _, err := tb.c.Create(t.Context(), ipc.CreateRequest{Name: "w", Backend: "vm"}); err != nil {
		t.Fatal(err)
	}
	tb.c.Close()
	tb = openTwoBackends(t, root)
	sb, err := tb.c.Inspect(t.Context(), ipc.Ref{Name: "w"})
	if err != nil {
		t.Fatal(err)
	}
	if sb.State != ipc.StateRunning || sb.Accel != "tcg" || sb.ReservedMiB != 8192 {
		t.Errorf("adopted: %s, accel %q, reserved %d; want running under tcg holding 8192", sb.State, sb.Accel, sb.ReservedMiB)
	}
}
