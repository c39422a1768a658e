package controller

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sandboxdesk/backends/testvm"
	"sandboxdesk/ipc"
)

// damage kinds for TestLostDatabaseIsRebuilt
var damages = map[string]func(t *testing.T, db string){
	"deleted": func(t *testing.T, db string) {
		for _, suffix := range []string{"", "-wal", "-shm"} {
			os.Remove(db + suffix)
		}
	},
	"emptied (a valid, empty database)": func(t *testing.T, db string) {
		for _, suffix := range []string{"-wal", "-shm"} {
			os.Remove(db + suffix)
		}
		must(t, os.Truncate(db, 0))
	},
	"header overwritten": func(t *testing.T, db string) { overwrite(t, db, 0) },
	"a page overwritten": func(t *testing.T, db string) { overwrite(t, db, 4096) },
}

func overwrite(t *testing.T, path string, at int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	must(t, err)
	defer f.Close()
	_, err = f.WriteAt([]byte(strings.Repeat("\xde\xad\xbe\xef", 1024)), at)
	must(t, err)
}

// TestLostDatabaseIsRebuilt: deleting or damaging state.db and restarting
// lists every sandbox with a folder again, running or stopped as it
// really is, keeps a damaged file aside, and says so.
func TestLostDatabaseIsRebuilt(t *testing.T) {
	for name, damage := range damages {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			a := e.create(ipc.CreateRequest{Name: "a", MemoryMiB: mib(3072), MaxLifetimeMs: msOf(time.Hour)})
			e.writeWorkspace("a", "notes.txt", "keep me")
			e.create(ipc.CreateRequest{Name: "b"})
			e.create(ipc.CreateRequest{Prefix: "ci", Name: "c", Image: "python"})
			for _, n := range []ipc.Ref{{Name: "b"}, {Prefix: "ci", Name: "c"}} {
				if _, err := e.c.Stop(t.Context(), n); err != nil {
					t.Fatal(err)
				}
			}
			// a folder that is not a sandbox's is left alone
			must(t, os.MkdirAll(filepath.Join(e.root, "sandboxes", "sb-0000000000000000"), 0o700))
			// a workspace whose sandbox folder is gone is named, not hidden
			must(t, os.MkdirAll(e.c.workspace("lonely"), 0o700))
			e.c.Close()
			damage(t, filepath.Join(e.root, "state.db"))

			e.reopen(testvm.Config{})
			got := e.states()
			ci, _ := e.c.List(t.Context(), "ci")
			if got["a"] != ipc.StateRunning || got["b"] != ipc.StateStopped || len(got) != 2 || len(ci) != 1 || ci[0].State != ipc.StateStopped {
				t.Errorf("after a rebuild: %v and ci %v, want a running, b and ci-c stopped", got, ci)
			}
			sa, _ := e.c.Inspect(t.Context(), ipc.Ref{Name: "a"})
			if sa.ID != a.ID || sa.MemoryMiB != 3072 || sa.MaxLifetimeMs != time.Hour.Milliseconds() || sa.ReservedMiB != 3072 || !sa.CreatedAt.Equal(a.CreatedAt) {
				t.Errorf("a rebuilt as %+v, was %+v", sa, a)
			}
			if got, ok := e.readWorkspace("a", "notes.txt"); !ok || got != "keep me" {
				t.Errorf("workspace after a rebuild: %q, %v", got, ok)
			}
			events, _ := e.c.store.recentEvents(t.Context(), "", 5)
			if len(events) == 0 || !strings.Contains(events[len(events)-1].Message, "rebuilt from what is on disk: 3 sandboxes") ||
				!strings.Contains(events[len(events)-1].Message, "lonely") {
				t.Errorf("no notice of the rebuild: %+v", events)
			}
			aside, _ := filepath.Glob(filepath.Join(e.root, "state.db.broken-*"))
			if strings.Contains(name, "overwritten") && len(aside) == 0 {
				t.Error("the damaged database was not kept aside")
			}
			// the rebuilt state works: stop, start, remove
			if _, err := e.c.Stop(t.Context(), ipc.Ref{Name: "a"}); err != nil {
				t.Error(err)
			}
			if sb := e.create(ipc.CreateRequest{Name: "b"}); sb.State != ipc.StateRunning {
				t.Errorf("b after start: %s", sb.State)
			}
			if ok, err := e.c.Remove(t.Context(), ipc.Ref{Prefix: "ci", Name: "c"}); !ok || err != nil {
				t.Errorf("remove ci-c: %v, %v", ok, err)
			}
		})
	}
}

// TestHostileSandboxJSON: what a sandbox.json says is checked; a link, a
// lie about its id or a bad name leaves the folder unlisted and untouched.
func TestHostileSandboxJSON(t *testing.T) {
	e := newEnv(t)
	good := e.create(ipc.CreateRequest{Name: "good"})
	dir := e.c.stateDir(good.ID)
	raw, err := os.ReadFile(filepath.Join(dir, metaFile))
	must(t, err)
	outside := filepath.Join(t.TempDir(), "elsewhere.json")
	must(t, os.WriteFile(outside, raw, 0o600))
	tests := map[string]func(p string){
		"a link":           func(p string) { os.Remove(p); must(t, os.Symlink(outside, p)) },
		"another id":       func(p string) { rewrite(t, p, raw, good.ID, "sb-1111111111111111") },
		"a path as name":   func(p string) { rewrite(t, p, raw, `"name": "good"`, `"name": "../../etc"`) },
		"huge":             func(p string) { must(t, os.WriteFile(p, []byte(strings.Repeat(" ", maxMeta+1)+string(raw)), 0o600)) },
		"memory too big":   func(p string) { rewrite(t, p, raw, `"memoryMiB": 0`, `"memoryMiB": 99999999`) },
		"control in image": func(p string) { rewrite(t, p, raw, `"image": "base"`, `"image": "base\u001b[2J"`) },
	}
	for name, plant := range tests {
		os.Remove(filepath.Join(dir, metaFile))
		must(t, os.WriteFile(filepath.Join(dir, metaFile), raw, 0o600))
		plant(filepath.Join(dir, metaFile))
		if _, err := readMeta(dir, good.ID); err == nil {
			t.Errorf("%s: read as a valid sandbox", name)
		}
	}
	os.Remove(filepath.Join(dir, metaFile)) // it may be the planted link
	must(t, os.WriteFile(filepath.Join(dir, metaFile), raw, 0o600))
	if r, err := readMeta(dir, good.ID); err != nil || r.FullName != "good" {
		t.Errorf("the real file: %+v, %v", r, err)
	}
}

func rewrite(t *testing.T, path string, raw []byte, old, new string) {
	t.Helper()
	if !strings.Contains(string(raw), old) {
		t.Fatalf("%q not in %s", old, raw)
	}
	os.Remove(path)
	must(t, os.WriteFile(path, []byte(strings.Replace(string(raw), old, new, 1)), 0o600))
}

// TestRebuildDoesNotBelieveTheFuture: a sandbox.json dated in the future
// (which would win every name) is left alone, not listed.
func TestRebuildDoesNotBelieveTheFuture(t *testing.T) {
	e := newEnv(t)
	w := e.create(ipc.CreateRequest{Name: "w"})
	e.c.Close()
	path := filepath.Join(e.c.stateDir(w.ID), metaFile)
	raw, err := os.ReadFile(path)
	must(t, err)
	rewrite(t, path, raw, "2026-11-30", "2099-11-30")
	damages["deleted"](t, filepath.Join(e.root, "state.db"))
	e.reopen(testvm.Config{})
	if got := e.states(); len(got) != 0 {
		t.Errorf("a claim from 2099 was listed: %v", got)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("its folder was touched: %v", err)
	}
}

// TestEmptyDescriptionRewrittenAtLaunch: a sandbox.json a crash left
// empty (its sync is not waited for at create) is written again from the
// database at the next launch, so a later rebuild still finds the sandbox.
func TestEmptyDescriptionRewrittenAtLaunch(t *testing.T) {
	e := newEnv(t)
	w := e.create(ipc.CreateRequest{Name: "w"})
	e.c.Close()
	path := filepath.Join(e.c.stateDir(w.ID), metaFile)
	must(t, os.WriteFile(path, nil, 0o600))
	e.reopen(testvm.Config{})
	if _, err := readMeta(e.c.stateDir(w.ID), w.ID); err != nil {
		t.Fatalf("sandbox.json still unreadable after a launch: %v", err)
	}
	e.c.Close()
	damages["deleted"](t, filepath.Join(e.root, "state.db"))
	e.reopen(testvm.Config{})
	if got := e.states(); len(got) != 1 {
		t.Errorf("rebuilt %v, want the one sandbox", got)
	}
}
