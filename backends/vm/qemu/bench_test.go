//go:build linux

package qemu

import (
	"context"
	"testing"
	"time"

	"sandboxdesk/backends"
)

// The VM benchmarks for make bench: a cold start (boot to a working
// agent), a start from a checkpoint, and an exec of true. Under software
// emulation (here) they measure TCG, not KVM; inspect says which.

func BenchmarkVMColdStart(b *testing.B) {
	be := newBackend(b, b.TempDir())
	ctx := context.Background()
	spec := backends.Spec{ID: "bench", Name: "bench", Image: backends.Image{Name: "tiny"}, Workspace: b.TempDir(), MemoryMiB: 512, Network: backends.NetworkOff}
	for b.Loop() {
		if _, err := be.Start(ctx, spec); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		be.Remove(ctx, "bench")
		b.StartTimer()
	}
}

func BenchmarkVMCheckpointStart(b *testing.B) {
	be := newBackend(b, b.TempDir())
	ctx := context.Background()
	spec := backends.Spec{ID: "bench", Name: "bench", Image: backends.Image{Name: "tiny"}, Workspace: b.TempDir(), MemoryMiB: 512, Network: backends.NetworkOff}
	if _, err := be.Start(ctx, spec); err != nil {
		b.Fatal(err)
	}
	defer be.Remove(ctx, "bench")
	for b.Loop() {
		b.StopTimer()
		if st, err := be.Stop(ctx, "bench", 10*time.Second); err != nil || !st.Checkpointed {
			b.Fatalf("stop: %+v, %v", st, err)
		}
		b.StartTimer()
		if _, err := be.Start(ctx, spec); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVMExecTrue(b *testing.B) {
	be := newBackend(b, b.TempDir())
	ctx := context.Background()
	spec := backends.Spec{ID: "bench", Name: "bench", Image: backends.Image{Name: "tiny"}, Workspace: b.TempDir(), MemoryMiB: 512, Network: backends.NetworkOff}
	if _, err := be.Start(ctx, spec); err != nil {
		b.Fatal(err)
	}
	defer be.Remove(ctx, "bench")
	for b.Loop() {
		if code, err := be.Exec(ctx, "bench", backends.ExecRequest{Args: []string{"true"}}); err != nil || code != 0 {
			b.Fatal(code, err)
		}
	}
}
