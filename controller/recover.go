package controller

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/mattn/go-sqlite3"

	"sandboxdesk/ipc"
)

// errDamaged marks a database that cannot be trusted: not a database, or
// one that fails SQLite's quick_check.
var errDamaged = errors.New("the state database is damaged")

// damaged tells a database that is broken from one that is only
// unreadable for now (locked, newer schema, full disk).
func damaged(err error) bool {
	var se sqlite3.Error
	if errors.As(err, &se) && (se.Code == sqlite3.ErrCorrupt || se.Code == sqlite3.ErrNotADB) {
		return true
	}
	return errors.Is(err, errDamaged)
}

// quickCheck runs SQLite's quick_check; anything but "ok" is damage.
func quickCheck(ctx context.Context, db *sql.DB) error {
	rows, err := db.QueryContext(ctx, "PRAGMA quick_check")
	if err != nil {
		return err
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return err
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w: %s", errDamaged, strings.Join(problems[:min(3, len(problems))], "; "))
	}
	return nil
}

// openState opens ROOT/state.db. A database that is damaged, or missing
// beside existing sandbox folders, is moved aside (never deleted) and a
// fresh one opened; why then says what happened, for the rebuild.
func (c *Controller) openState(ctx context.Context) (s *store, why string, err error) {
	path := filepath.Join(c.root, "state.db")
	_, statErr := os.Lstat(path)
	switch {
	case errors.Is(statErr, os.ErrNotExist) && len(c.sandboxFolders()) > 0:
		why = "the state database was missing"
		// a journal left without its database must not be replayed
		// into the new one
		if _, err := c.moveAside(path); err != nil {
			return nil, "", fmt.Errorf("move aside the journal of the missing state database %s: %w", path, err)
		}
	case statErr == nil:
		s, err = openStore(ctx, path)
		if err == nil {
			return s, "", nil
		}
		if !damaged(err) {
			return nil, "", diskError("open the state database", path, err)
		}
		aside, merr := c.moveAside(path)
		if merr != nil {
			return nil, "", fmt.Errorf("the state database %s is damaged (%v) and could not be moved aside: %w", path, err, merr)
		}
		why = fmt.Sprintf("the state database was damaged (%v); it is kept as %s", err, aside)
	}
	s, err = openStore(ctx, path)
	if err != nil {
		return nil, "", diskError("open the state database", path, err)
	}
	return s, why, nil
}

// moveAside renames the database and its journal files to
// state.db.broken-TIMESTAMP(-wal, -shm) and returns the new name of the
// database ("" when only journals were there).
func (c *Controller) moveAside(path string) (string, error) {
	aside := path + ".broken-" + c.clock.Now().UTC().Format("20060102T150405Z")
	moved := ""
	for _, suffix := range []string{"", "-wal", "-shm"} {
		err := os.Rename(path+suffix, aside+suffix)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		if suffix == "" {
			moved = aside
		}
	}
	if moved == "" {
		return "", nil
	}
	return moved, nil
}

// sandboxFolders lists the state folders of sandboxes: ROOT/sandboxes/ID.
func (c *Controller) sandboxFolders() []string {
	entries, _ := os.ReadDir(filepath.Join(c.root, "sandboxes"))
	var ids []string
	for _, e := range entries {
		if e.IsDir() && e.Type()&os.ModeSymlink == 0 && idRE().MatchString(e.Name()) {
			ids = append(ids, e.Name())
		}
	}
	return ids
}

// rebuild lists every sandbox whose state folder describes it
// (sandbox.json) and that the database does not list, as stopped; reconcile
// then marks running the ones a backend still runs. why says why the
// database was replaced ("" when it was not: then only folders a crash
// left between writing them and saving their row are found). A folder
// that cannot be read, or one whose name is taken, is left on disk
// untouched and reported.
func (c *Controller) rebuild(ctx context.Context, why string) error {
	listed, err := c.store.loadAll(ctx)
	if err != nil {
		return err
	}
	ids, names := map[string]bool{}, map[string]bool{}
	for _, r := range listed {
		ids[r.ID], names[r.FullName] = true, true
	}
	var found []*record
	var problems []string
	for _, id := range c.sandboxFolders() {
		if ids[id] {
			continue
		}
		r, err := readMeta(c.stateDir(id), id)
		if err == nil && r.CreatedAt.After(c.clock.Now().Add(time.Hour)) {
			// a claim from the future would win every name below
			err = fmt.Errorf("%s: created in the future (%v)", metaFile, r.CreatedAt)
		}
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", id, err))
			continue
		}
		found = append(found, &r)
	}
	// the newest claim on a name wins: an older one is a rebuild that was
	// interrupted before its old folder went
	sort.Slice(found, func(i, j int) bool { return found[i].CreatedAt.After(found[j].CreatedAt) })
	var keep []*record
	for _, r := range found {
		if names[r.FullName] {
			problems = append(problems, fmt.Sprintf("%s: another sandbox is named %s; this folder is left alone", r.ID, r.FullName))
			continue
		}
		names[r.FullName] = true
		keep = append(keep, r)
	}
	if why == "" && len(keep) == 0 {
		if len(problems) > 0 {
			c.log.Warn("sandbox folders the database does not list are left alone", "folders", strings.Join(problems, "; "))
		}
		return nil
	}
	if why == "" {
		why = "sandbox folders the state database did not list were found"
	}
	msg := fmt.Sprintf("%s; the state is rebuilt from what is on disk: %d sandboxes found", why, len(keep))
	if len(problems) > 0 {
		msg += fmt.Sprintf("; %d folders could not be read and are left alone (%s)", len(problems), strings.Join(problems, "; "))
	}
	if lone := c.loneWorkspaces(names); len(lone) > 0 {
		msg += fmt.Sprintf("; workspaces with no sandbox are kept, and a create of the name uses them again: %s", strings.Join(lone, ", "))
	}
	c.log.Warn(msg)
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.commitLocked(ctx, change{put: keep, event: ipc.Event{Time: c.clock.Now(), Kind: ipc.EventNotice, Message: msg}})
}

// loneWorkspaces lists the workspace folders no sandbox named in names
// uses.
func (c *Controller) loneWorkspaces(names map[string]bool) []string {
	entries, _ := os.ReadDir(filepath.Join(c.root, "workspaces"))
	var out []string
	for _, e := range entries {
		if e.IsDir() && !names[e.Name()] && !strings.HasPrefix(e.Name(), trashPrefix) {
			out = append(out, e.Name())
		}
	}
	return out
}
