package controller

import (
	"os"
	"path/filepath"
	"testing"

	"sandboxdesk/backends/testvm"
	"sandboxdesk/ipc"
)

// TestFailedRemoveKeepsRowAndWorkspace: when the row cannot be deleted
// (a full disk, an I/O error), the folders are put back and the sandbox
// stays listed with its workspace; nothing is left aside.
func TestFailedRemoveKeepsRowAndWorkspace(t *testing.T) {
	e := newEnv(t)
	w := e.create(ipc.CreateRequest{Name: "w"})
	e.writeWorkspace("w", "notes.txt", "keep me")
	e.sql(`CREATE TRIGGER no_delete BEFORE DELETE ON sandboxes BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END`)
	if _, err := e.c.Remove(t.Context(), ipc.Ref{Name: "w"}); err == nil {
		t.Fatal("remove succeeded with a database that cannot delete")
	}
	if got, ok := e.readWorkspace("w", "notes.txt"); !ok || got != "keep me" {
		t.Fatalf("workspace after a failed remove: %q, %v", got, ok)
	}
	if _, err := os.Stat(filepath.Join(e.c.stateDir(w.ID), metaFile)); err != nil {
		t.Errorf("state folder after a failed remove: %v", err)
	}
	if e.rows() != 1 {
		t.Errorf("%d rows after a failed remove, want 1", e.rows())
	}
	if left := e.trash(); len(left) != 0 {
		t.Errorf("left aside: %v", left)
	}
	e.sql(`DROP TRIGGER no_delete`)
	if ok, err := e.c.Remove(t.Context(), ipc.Ref{Name: "w"}); err != nil || !ok {
		t.Fatalf("remove once the database works: %v, %v", ok, err)
	}
	if e.workspaceExists("w") || e.rows() != 0 || len(e.trash()) != 0 {
		t.Errorf("after remove: workspace %v, %d rows, trash %v", e.workspaceExists("w"), e.rows(), e.trash())
	}
}

// TestInterruptedRemove: a controller killed after moving the folders
// aside but before deleting the row gets them back at the next start; one
// killed after deleting the row has them deleted.
func TestInterruptedRemove(t *testing.T) {
	e := newEnv(t)
	kept := e.create(ipc.CreateRequest{Name: "kept"})
	e.writeWorkspace("kept", "notes.txt", "keep me")
	gone := e.create(ipc.CreateRequest{Name: "gone"})
	for _, r := range []ipc.Sandbox{kept, gone} {
		must(t, os.Rename(e.c.stateDir(r.ID), e.c.stateTrash(r.ID)))
		must(t, os.Rename(e.c.workspace(r.Name), e.c.workspaceTrash(r.ID)))
	}
	e.sql(`DELETE FROM sandboxes WHERE full_name = 'gone'`)
	e.reopen(testvm.Config{})
	if got, ok := e.readWorkspace("kept", "notes.txt"); !ok || got != "keep me" {
		t.Fatalf("workspace of a sandbox whose remove was interrupted before its row went: %q, %v", got, ok)
	}
	if _, err := os.Stat(e.c.stateDir(kept.ID)); err != nil {
		t.Errorf("state folder not put back: %v", err)
	}
	if left := e.trash(); len(left) != 0 {
		t.Errorf("left aside after restart: %v", left)
	}
	if states := e.states(); len(states) != 1 || states["kept"] == "" {
		t.Errorf("after restart: %v, want only kept", states)
	}
}

// TestFailedCreateLeavesNoFolder: a create whose row cannot be written
// leaves no state folder and no empty workspace; a workspace that was
// there already (a rebuild) is kept.
func TestFailedCreateLeavesNoFolder(t *testing.T) {
	e := newEnv(t)
	e.sql(`CREATE TRIGGER no_insert BEFORE INSERT ON sandboxes BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`)
	_, err := e.c.Create(t.Context(), ipc.CreateRequest{Name: "w"})
	if err == nil {
		t.Fatal("create succeeded with a full database")
	}
	if e.workspaceExists("w") {
		t.Error("a failed create left an empty workspace folder")
	}
	if entries, _ := os.ReadDir(filepath.Join(e.root, "sandboxes")); len(entries) != 0 {
		t.Errorf("a failed create left %d state folders", len(entries))
	}
	must(t, os.MkdirAll(e.c.workspace("w"), 0o700))
	e.writeWorkspace("w", "notes.txt", "keep me")
	if _, err := e.c.Create(t.Context(), ipc.CreateRequest{Name: "w"}); err == nil {
		t.Fatal("create succeeded with a full database")
	}
	if got, ok := e.readWorkspace("w", "notes.txt"); !ok || got != "keep me" {
		t.Errorf("a failed create took an existing workspace: %q, %v", got, ok)
	}
}

func (e *env) trash() []string {
	var out []string
	for _, dir := range []string{"sandboxes", "workspaces"} {
		m, _ := filepath.Glob(filepath.Join(e.root, dir, trashPrefix+"*"))
		out = append(out, m...)
	}
	return out
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
