package controller

import (
	"database/sql"
	"path/filepath"
	"testing"

	"sandboxdesk/backends"
	"sandboxdesk/ipc"
)

// TestLimitHitsStayOnTheSandbox: what a backend's limits did reaches
// inspect (counts and the last notice) and the store, not only the event
// log.
func TestLimitHitsStayOnTheSandbox(t *testing.T) {
	e := newEnv(t)
	sb := e.create(ipc.CreateRequest{Name: "w"})
	e.c.backendEvent(t.Context(), backends.Event{ID: sb.ID, OOMKills: 2, Message: "out of memory: the kernel killed 2 process(es)"})
	e.c.backendEvent(t.Context(), backends.Event{ID: sb.ID, PidsLimitHits: 3, Message: "process limit: 3 new process(es) refused"})
	got, err := e.c.Inspect(t.Context(), ipc.Ref{Name: "w"})
	if err != nil {
		t.Fatal(err)
	}
	if got.OOMKills != 2 || got.PidsLimitHits != 3 || got.LastNotice != "process limit: 3 new process(es) refused" || got.LastNoticeAt == nil {
		t.Errorf("inspect after two limit hits: oomKills %d, pidsLimitHits %d, lastNotice %q", got.OOMKills, got.PidsLimitHits, got.LastNotice)
	}
	recs, err := e.c.store.loadAll(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.ID == sb.ID && (r.OOMKills != 2 || r.PidsLimitHits != 3 || r.LastNotice == "") {
			t.Errorf("stored: oomKills %d, pidsLimitHits %d, lastNotice %q", r.OOMKills, r.PidsLimitHits, r.LastNotice)
		}
	}
}

// TestSchemaOneUpgrades: a database from before the process limit opens,
// its sandboxes intact, with no limit of their own and nothing noticed.
func TestSchemaOneUpgrades(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	db, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{migrations[1],
		`INSERT INTO sandboxes (id, full_name, prefix, name, backend, image, image_digest, memory_mib, cpus, disk_mib, network,
			idle_timeout_ms, max_lifetime_ms, stop_grace_ms, state, reserved_mib, limit_mib, created_at, error)
			VALUES ('sb-1', 'w', '', 'w', 'bubblewrap', 'host', 'host', 2048, 2, 8192, 1, 0, 0, 10000, 'stopped', 0, 0, 1, '')`,
		"PRAGMA user_version = 1"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	s, err := openStore(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	recs, err := s.loadAll(t.Context())
	if err != nil || len(recs) != 1 {
		t.Fatalf("after the upgrade: %d sandboxes, %v", len(recs), err)
	}
	if r := recs[0]; r.ID != "sb-1" || r.MemoryMiB != 2048 || r.Pids != 0 || r.PidsLimit != 0 || r.OOMKills != 0 || r.LastNotice != "" || !r.LastNoticeAt.IsZero() {
		t.Errorf("upgraded sandbox: %+v", r)
	}
}
