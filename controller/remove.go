package controller

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sandboxdesk/ipc"
)

// trashPrefix names a folder moved aside to be deleted. Sandbox names and
// IDs never start with '.', so it cannot clash with a live folder.
const trashPrefix = ".rm-"

// destroy stops r if needed, has the backend remove it, and deletes its
// row, its state folder and, with workspace, its workspace. The caller
// holds r's name lock.
//
// The folders are first renamed aside (all or nothing), then the row is
// deleted, then the renamed folders. A failure before the row is gone
// moves them back; an interruption is finished at the next Open
// (sweepTrash). So no row is ever left without its workspace, and a
// half-deleted tree is never visible under a sandbox's name.
func (c *Controller) destroy(ctx context.Context, r *record, workspace bool, reason string) error {
	b, err := c.backendOf(r)
	if err != nil {
		return err
	}
	if r.State.Active() {
		if err := c.halt(ctx, r, reason); err != nil {
			c.log.Warn("stop before remove", "sandbox", r.FullName, "err", err)
		}
	}
	if err := b.Remove(ctx, r.ID); err != nil {
		return ipc.Errorf(ipc.ErrUnavailable, "remove sandbox %s: %w", r.FullName, err)
	}
	moves := [][2]string{{c.stateDir(r.ID), c.stateTrash(r.ID)}}
	if workspace {
		moves = append(moves, [2]string{c.workspace(r.FullName), c.workspaceTrash(r.ID)})
	}
	moved, err := moveAside(moves)
	if err != nil {
		moveBack(moved)
		return fmt.Errorf("remove sandbox %s: %w", r.FullName, err)
	}
	err = c.deleteRow(ctx, r, reason)
	// the disk may be too full even to delete a row. What the remove
	// deletes anyway then goes first, the state folder (home, installed
	// tools) and then what the workspace holds, until the row can go;
	// the workspace folder itself stays until the row is gone
	for i := 0; isDiskFull(err) && i < len(moved); i++ {
		removeTree(moved[i][1])
		os.Mkdir(moved[i][1], 0o700)
		err = c.deleteRow(ctx, r, reason)
	}
	if err != nil {
		moveBack(moved)
		return fmt.Errorf("remove sandbox %s: %w", r.FullName, err)
	}
	for _, m := range moved {
		if err := removeTree(m[1]); err != nil {
			// the row is gone; the next Open deletes what is left
			c.log.Warn("delete a removed sandbox's folder", "sandbox", r.FullName, "folder", m[1], "err", err)
		}
	}
	c.ensureReserve() // what the remove freed refills a reserve a full disk used
	return nil
}

func (c *Controller) deleteRow(ctx context.Context, r *record, reason string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	err := c.commitLocked(ctx, change{delete: []string{r.ID}, event: ipc.Event{
		Time: c.clock.Now(), Kind: ipc.EventState, Sandbox: r.FullName, ID: r.ID, Message: reason}})
	c.admitNextLocked(ctx)
	return err
}

func (c *Controller) stateTrash(id string) string {
	return filepath.Join(c.root, "sandboxes", trashPrefix+id)
}

func (c *Controller) workspaceTrash(id string) string {
	return filepath.Join(c.root, "workspaces", trashPrefix+id)
}

// moveAside renames each folder that exists to its trash name and returns
// the moves it made.
func moveAside(moves [][2]string) ([][2]string, error) {
	var done [][2]string
	for _, m := range moves {
		if _, err := os.Lstat(m[0]); errors.Is(err, os.ErrNotExist) {
			continue
		}
		removeTree(m[1]) // a leftover of an earlier attempt
		if err := os.Rename(m[0], m[1]); err != nil {
			return done, err
		}
		done = append(done, m)
	}
	return done, nil
}

func moveBack(moved [][2]string) {
	for _, m := range moved {
		os.Rename(m[1], m[0])
	}
}

// sweepTrash finishes removals a previous controller was interrupted in:
// a trash folder whose sandbox still has a row goes back (the row was
// never deleted), any other is deleted. Called with the records loaded.
func (c *Controller) sweepTrash(recs map[string]*record) {
	byID := map[string]*record{}
	for _, r := range recs {
		byID[r.ID] = r
	}
	for _, dir := range []string{"sandboxes", "workspaces"} {
		entries, _ := os.ReadDir(filepath.Join(c.root, dir))
		for _, e := range entries {
			id, ok := strings.CutPrefix(e.Name(), trashPrefix)
			if !ok {
				continue
			}
			trash := filepath.Join(c.root, dir, e.Name())
			if r := byID[id]; r != nil {
				// the row was never deleted: the folder is still its
				back := c.stateDir(id)
				if dir == "workspaces" {
					back = c.workspace(r.FullName)
				}
				if err := os.Rename(trash, back); err != nil {
					c.log.Warn("undo an interrupted remove: the folder is kept aside", "sandbox", r.FullName, "folder", trash, "err", err)
				} else {
					c.log.Info("an interrupted remove is undone", "sandbox", r.FullName, "folder", back)
				}
				continue
			}
			if err := removeTree(trash); err != nil {
				c.log.Warn("delete a removed sandbox's folder", "folder", trash, "err", err)
			}
		}
	}
}
