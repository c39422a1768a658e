package vm

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"sandboxdesk/backends/agent"
)

// CheckpointFile is a stopped machine's saved state, in its folder.
const CheckpointFile = "checkpoint"

// runtimeFiles are what a machine that ended leaves in its folder and a
// new one makes again; a checkpoint and the record it needs stay.
var runtimeFiles = []string{"qmp.sock", "agent.sock", "console.sock", "qemu.pid", "qemu.log", ConsoleLog, CheckpointFile + ".tmp"}

// restorable says whether dir holds a checkpoint of a machine built from
// img, and returns that machine's record.
func restorable(dir string, img Image) (record, bool) {
	rec, err := readRecord(dir)
	if err != nil || rec.Digest != img.Digest {
		return rec, false
	}
	_, err = os.Stat(filepath.Join(dir, CheckpointFile))
	return rec, err == nil
}

func clearRuntime(dir string) error {
	for _, name := range runtimeFiles {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("vm backend: %w", err)
		}
	}
	return nil
}

// checkpoint saves a running machine: the guest lets go of its
// workspace first (QEMU saves no machine with a 9p export mounted), the
// channel is closed so the restored guest listens anew, then the state
// is written. The reason comes back when it cannot be saved, and the
// machine still runs.
func (b *Backend) checkpoint(ctx context.Context, m *machine) error {
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	code, err := call(cctx, m.dial, agent.Request{Op: "release"})
	cancel()
	if err != nil {
		return fmt.Errorf("the guest did not let go of /workspace: %w", err)
	}
	if code != 0 {
		return errors.New("a process in the VM still uses /workspace, which QEMU cannot save while it is mounted")
	}
	m.resetChannel()
	if err := m.h.Save(ctx, CheckpointFile); err != nil {
		b.remount(ctx, m)
		return err
	}
	return nil
}

// remount gives the guest its workspace back (after a restore, or a save
// that failed).
func (b *Backend) remount(ctx context.Context, m *machine) error {
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	code, err := call(cctx, m.dial, agent.Request{Op: "mount"})
	if err == nil && code != 0 {
		err = errors.New("the guest could not mount it")
	}
	if err != nil {
		return fmt.Errorf("/workspace after a restore: %w", err)
	}
	return nil
}

// DropCheckpoint deletes a stopped sandbox's checkpoint: it boots cold
// next time. Its workspace is not in it and is never touched.
func (b *Backend) DropCheckpoint(ctx context.Context, id string) error {
	dir, err := b.dir(id)
	if err != nil {
		return err
	}
	if b.get(id) != nil {
		return fmt.Errorf("vm %s: %w", id, errors.New("a running machine has no checkpoint to drop"))
	}
	if err := os.Remove(filepath.Join(dir, CheckpointFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("vm %s: %w", id, err)
	}
	return nil
}
