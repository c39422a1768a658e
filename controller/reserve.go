package controller

import (
	"context"
	"os"
	"path/filepath"

	"sandboxdesk/ipc"
)

// A root on a disk that fills up (a sandbox writing until it cannot) must
// still let a person stop and remove sandboxes, and those are writes to
// the database. So the controller keeps a little space of its own: a
// reserve file it deletes when a state change fails for want of space,
// and makes again once there is room.
const (
	reserveFile  = "space.reserve"
	reserveBytes = 4 << 20
)

// minFreeToBuild is the free space a new sandbox needs in the root: less,
// and it is refused before anything is written, so the little that is
// left serves stop and rm.
const minFreeToBuild = 2 * reserveBytes

// roomToBuild refuses a new sandbox on a root whose disk is (nearly) full,
// naming the folder. An unmeasured host is not refused here: the writes
// themselves will say so.
func (c *Controller) roomToBuild(full string, m measured) error {
	if m.err != nil || m.info.AvailableDiskBytes >= minFreeToBuild {
		return nil
	}
	return ipc.Errorf(ipc.ErrUnavailable, "create sandbox %s: %w: %s has %d KiB left; free some space (remove sandboxes you no longer need with 'sandboxdesk rm') and try again",
		full, errDiskFull, c.root, m.info.AvailableDiskBytes>>10)
}

func (c *Controller) reservePath() string { return filepath.Join(c.root, reserveFile) }

// ensureReserve makes the reserve file if it is missing and there is room;
// a partial one is removed rather than kept (it would reserve less than
// it says).
func (c *Controller) ensureReserve() {
	path := c.reservePath()
	if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() && fi.Size() == reserveBytes {
		return
	}
	os.Remove(path)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		c.log.Warn("keep a space reserve for a full disk", "file", path, "err", err)
		return
	}
	// written, not truncated: a sparse file would reserve nothing
	_, err = f.Write(make([]byte, reserveBytes))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		c.log.Warn("keep a space reserve for a full disk: the disk is full", "file", path, "err", err)
	}
}

// releaseReserve deletes the reserve so a state change can be saved on a
// full disk; it reports whether there was one to give.
func (c *Controller) releaseReserve() bool {
	err := os.Remove(c.reservePath())
	if err == nil {
		msg := "the disk holding " + c.root + " is full: sandboxdesk used its space reserve to save the state; free some space"
		c.log.Warn(msg)
		c.events.publish(ipc.Event{Time: c.clock.Now(), Kind: ipc.EventNotice, Message: msg})
	}
	return err == nil
}

// saveOnFullDisk retries a change that failed for want of space: with the
// reserve given up, then with the journal restarted so that SQLite writes
// into the space its WAL file already holds instead of growing it.
func (c *Controller) saveOnFullDisk(ctx context.Context, ch change) error {
	ctx = context.WithoutCancel(ctx)
	err := errDiskFull
	if c.releaseReserve() {
		err = c.store.apply(ctx, ch)
	}
	if isDiskFull(err) {
		if _, cerr := c.store.db.ExecContext(ctx, "PRAGMA wal_checkpoint(RESTART)"); cerr == nil {
			err = c.store.apply(ctx, ch)
		}
	}
	if isDiskFull(err) {
		return diskError("save the state", c.root, err)
	}
	return err
}
