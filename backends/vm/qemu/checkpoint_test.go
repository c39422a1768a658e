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

// TestCheckpointKeepsProcesses stops a VM into a checkpoint and starts it
// again: a background process is still there with its pid, the machine
// holds the memory it was built with, and the workspace is intact. A
// dropped checkpoint boots cold and loses only the processes.
func TestCheckpointKeepsProcesses(t *testing.T) {
	dir := t.TempDir()
	b := newBackend(t, dir)
	if !b.Capabilities().Checkpoints {
		t.Fatal("the qemu backend does not say it checkpoints")
	}
	ws := t.TempDir()
	ctx := context.Background()
	spec := backends.Spec{ID: "cp", Name: "cp", Image: backends.Image{Name: "tiny"}, Workspace: ws, MemoryMiB: 512}
	if _, err := b.Start(ctx, spec); err != nil {
		t.Fatal(err)
	}
	defer b.Remove(ctx, "cp")
	code, out := run(t, b, "cp", backends.ExecRequest{Args: []string{"sh", "-c", "sleep 1000 >/dev/null 2>&1 & echo $!; echo kept > /workspace/w.txt"}, Dir: "/"})
	pid := strings.TrimSpace(out)
	if code != 0 || pid == "" {
		t.Fatalf("background sleep: %d %q", code, out)
	}

	st, err := b.Stop(ctx, "cp", 10*time.Second)
	if err != nil || !st.Checkpointed {
		t.Fatalf("stop: %+v, %v; console: %s", st, err, tail(filepath.Join(dir, "cp", vm.ConsoleLog)))
	}
	if _, err := os.Stat(filepath.Join(dir, "cp", vm.CheckpointFile)); err != nil {
		t.Fatalf("no checkpoint after stop: %v", err)
	}
	// the controller's share changed meanwhile; a restored VM holds what
	// it was built with
	spec.MemoryMiB = 1024
	started, err := b.Start(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := b.MemoryMiB(ctx, "cp"); started.ReservedMiB != 512 || got != 512 || err != nil {
		t.Errorf("restored: reserved %d, QMP %d (%v); want the 512 it was built with", started.ReservedMiB, got, err)
	}
	if code, out := run(t, b, "cp", backends.ExecRequest{Args: []string{"sh", "-c", "[ \"$(cat /proc/" + pid + "/comm)\" = sleep ] && cat /workspace/w.txt && echo more >> /workspace/w.txt"}}); code != 0 || out != "kept\n" {
		t.Errorf("after restore: exit %d, %q (the sleep was %s)", code, out, pid)
	}
	if _, err := os.Stat(filepath.Join(dir, "cp", vm.CheckpointFile)); !os.IsNotExist(err) {
		t.Errorf("the checkpoint outlived its restore: %v", err)
	}

	// beyond the retained limit the controller drops a checkpoint
	if st, err := b.Stop(ctx, "cp", 10*time.Second); err != nil || !st.Checkpointed {
		t.Fatalf("second stop: %+v, %v", st, err)
	}
	if err := b.DropCheckpoint(ctx, "cp"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Start(ctx, spec); err != nil {
		t.Fatal(err)
	}
	if code, out := run(t, b, "cp", backends.ExecRequest{Args: []string{"sh", "-c", "[ \"$(cat /proc/" + pid + "/comm 2>/dev/null)\" = sleep ]; echo $?; cat /workspace/w.txt"}}); code != 0 || out != "1\nkept\nmore\n" {
		t.Errorf("cold boot after the checkpoint was dropped: exit %d, %q", code, out)
	}
	if got, _ := b.MemoryMiB(ctx, "cp"); got != 1024 {
		t.Errorf("a cold boot holds %d MiB, want the new share 1024", got)
	}
}
