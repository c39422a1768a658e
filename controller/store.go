package controller

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	_ "github.com/mattn/go-sqlite3" // the "sqlite3" driver

	"sandboxdesk/backends"
	"sandboxdesk/ipc"
)

// store keeps the controller's state in SQLite: sandboxes, settings and the
// event log. Every state change is one transaction that writes the row and
// its event together, so the log never disagrees with the rows.
type store struct {
	db *sql.DB
}

// migrations are applied in order, each once, each in its own transaction.
// Append only: a migration that has shipped is never edited.
var migrations = []string{
	1: `
CREATE TABLE sandboxes (
	id              TEXT PRIMARY KEY,
	full_name       TEXT NOT NULL UNIQUE,
	prefix          TEXT NOT NULL,
	name            TEXT NOT NULL,
	backend         TEXT NOT NULL,
	image           TEXT NOT NULL,
	image_digest    TEXT NOT NULL,
	memory_mib      INTEGER NOT NULL,
	cpus            INTEGER NOT NULL,
	disk_mib        INTEGER NOT NULL,
	network         INTEGER NOT NULL, -- see networkCodes
	idle_timeout_ms INTEGER NOT NULL,
	max_lifetime_ms INTEGER NOT NULL,
	stop_grace_ms   INTEGER NOT NULL,
	state           TEXT NOT NULL,
	reserved_mib    INTEGER NOT NULL,
	limit_mib       INTEGER NOT NULL,
	created_at      INTEGER NOT NULL,
	started_at      INTEGER,
	last_used_at    INTEGER,
	checkpoint_at   INTEGER,
	error           TEXT NOT NULL
);
CREATE INDEX sandboxes_prefix ON sandboxes(prefix);
CREATE TABLE settings (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
);
CREATE TABLE events (
	seq       INTEGER PRIMARY KEY AUTOINCREMENT,
	at        INTEGER NOT NULL,
	kind      TEXT NOT NULL,
	sandbox   TEXT NOT NULL,
	id        TEXT NOT NULL,
	state     TEXT NOT NULL,
	message   TEXT NOT NULL
);`,
	// restore: stopped by a controller that was shutting down (or found
	// dead after a crash), so the next launch starts it again. cpus_held,
	// disk_held: what the last start really gave, for the reuse rule.
	2: `
ALTER TABLE sandboxes ADD COLUMN restore INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sandboxes ADD COLUMN cpus_held INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sandboxes ADD COLUMN disk_held_mib INTEGER NOT NULL DEFAULT 0;`,
	// 3: the process limit (own, and enforced while running), the disk
	// limit enforced, and what limits did: OOM kills, refused forks, the
	// last notice
	3: `
ALTER TABLE sandboxes ADD COLUMN pids INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sandboxes ADD COLUMN pids_limit INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sandboxes ADD COLUMN disk_limit_mib INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sandboxes ADD COLUMN oom_kills INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sandboxes ADD COLUMN pids_limit_hits INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sandboxes ADD COLUMN last_notice TEXT NOT NULL DEFAULT '';
ALTER TABLE sandboxes ADD COLUMN last_notice_at INTEGER;`,
	// 4: user namespaces allowed inside the sandbox; off for all before
	4: `
ALTER TABLE sandboxes ADD COLUMN nested_userns INTEGER NOT NULL DEFAULT 0;`,
}

func openStore(ctx context.Context, path string) (*store, error) {
	// WAL lets readers go on while a write commits; the busy timeout rides
	// out another connection's write instead of failing at once;
	// _txlock=immediate takes the write lock at BEGIN, so two transactions
	// never deadlock upgrading from read to write.
	q := url.Values{}
	q.Set("_journal_mode", "WAL")
	q.Set("_busy_timeout", "5000")
	q.Set("_foreign_keys", "on")
	q.Set("_txlock", "immediate")
	q.Set("_synchronous", "NORMAL")
	// the database is its owner's alone; SQLite gives the -wal and -shm
	// files the database file's mode
	if err := privateFiles(path, path+"-wal", path+"-shm"); err != nil {
		return nil, fmt.Errorf("open state database %s: %w", path, err)
	}
	db, err := sql.Open("sqlite3", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open state database %s: %w", path, err)
	}
	db.SetMaxOpenConns(1) // one writer; queries wait their turn in Go, not in SQLite
	s := &store{db: db}
	if err := quickCheck(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("open state database %s: %w", path, err)
	}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open state database %s: %w", path, err)
	}
	return s, nil
}

func (s *store) close() error { return s.db.Close() }

func (s *store) migrate(ctx context.Context) error {
	var version int
	if err := s.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return err
	}
	if version > len(migrations)-1 {
		return fmt.Errorf("the database is from a newer sandboxdesk (schema %d, this one knows %d); upgrade sandboxdesk", version, len(migrations)-1)
	}
	for v := version + 1; v < len(migrations); v++ {
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %d: %w", v, err)
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", v)); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %d: %w", v, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migration %d: %w", v, err)
		}
	}
	return nil
}

const sandboxColumns = `id, full_name, prefix, name, backend, image, image_digest, memory_mib, cpus,
	disk_mib, network, idle_timeout_ms, max_lifetime_ms, stop_grace_ms, state, reserved_mib,
	limit_mib, created_at, started_at, last_used_at, checkpoint_at, error, restore, cpus_held,
	disk_held_mib, pids, pids_limit, disk_limit_mib, oom_kills, pids_limit_hits, last_notice,
	last_notice_at, nested_userns`

// record is a sandbox as the controller keeps it.
type record struct {
	ID, FullName, Prefix, Name  string
	Backend, Image, ImageDigest string
	MemoryMiB                   int64
	CPUs                        int
	DiskMiB                     int64
	Network                     backends.Network
	IdleTimeout, MaxLifetime    time.Duration
	StopGrace                   time.Duration
	State                       ipc.State
	ReservedMiB, LimitMiB       int64
	CreatedAt                   time.Time
	StartedAt, LastUsedAt       time.Time // zero: never
	CheckpointAt                time.Time // zero: no checkpoint held
	Error                       string
	// Restore: start it again at the next launch.
	Restore bool
	// HeldCPUs, HeldDiskMiB: what the last start gave it; 0 never started.
	HeldCPUs    int
	HeldDiskMiB int64
	// Pids is the own process limit (0: the backend's default); PidsLimit
	// and DiskLimitMiB what the backend enforces while it runs (0: none)
	Pids, PidsLimit, DiskLimitMiB int64
	// what limits did over the sandbox's life, and the last thing said
	OOMKills, PidsLimitHits int
	LastNotice              string
	LastNoticeAt            time.Time
	// NestedUserns: user namespaces inside the sandbox are allowed.
	NestedUserns bool
	// Accel is how a running VM runs, as its backend said at start or on
	// adoption. Not stored: it is true only while the machine runs, and a
	// restarted controller hears it again from Observe.
	Accel string
}

func (r *record) args() []any {
	return []any{r.ID, r.FullName, r.Prefix, r.Name, r.Backend, r.Image, r.ImageDigest, r.MemoryMiB,
		r.CPUs, r.DiskMiB, networkCode(r.Network), r.IdleTimeout.Milliseconds(), r.MaxLifetime.Milliseconds(),
		r.StopGrace.Milliseconds(), string(r.State), r.ReservedMiB, r.LimitMiB, r.CreatedAt.UnixNano(),
		nullTime(r.StartedAt), nullTime(r.LastUsedAt), nullTime(r.CheckpointAt), r.Error, r.Restore,
		r.HeldCPUs, r.HeldDiskMiB,
		r.Pids, r.PidsLimit, r.DiskLimitMiB, r.OOMKills, r.PidsLimitHits, r.LastNotice, nullTime(r.LastNoticeAt),
		r.NestedUserns}
}

func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixNano()
}

func scanRecord(sc interface{ Scan(...any) error }) (record, error) {
	var r record
	var idle, life, grace, created, network int64
	var state string
	var started, used, checkpoint, noticed sql.NullInt64
	err := sc.Scan(&r.ID, &r.FullName, &r.Prefix, &r.Name, &r.Backend, &r.Image, &r.ImageDigest,
		&r.MemoryMiB, &r.CPUs, &r.DiskMiB, &network, &idle, &life, &grace, &state, &r.ReservedMiB,
		&r.LimitMiB, &created, &started, &used, &checkpoint, &r.Error, &r.Restore, &r.HeldCPUs,
		&r.HeldDiskMiB, &r.Pids, &r.PidsLimit, &r.DiskLimitMiB, &r.OOMKills, &r.PidsLimitHits, &r.LastNotice, &noticed,
		&r.NestedUserns)
	if err != nil {
		return record{}, err
	}
	if r.Network, err = networkOf(network); err != nil {
		return record{}, fmt.Errorf("sandbox %s: %w", r.FullName, err)
	}
	r.IdleTimeout, r.MaxLifetime, r.StopGrace = ms(idle), ms(life), ms(grace)
	r.State = ipc.State(state)
	r.CreatedAt = time.Unix(0, created).UTC()
	r.StartedAt, r.LastUsedAt, r.CheckpointAt = fromNull(started), fromNull(used), fromNull(checkpoint)
	r.LastNoticeAt = fromNull(noticed)
	return r, nil
}

// networkCodes are how the network column holds a sandbox's network: 0
// and 1 are the off and on of the rows written before "host" existed, so
// they read as they always did and need no migration.
var networkCodes = []backends.Network{0: backends.NetworkOff, 1: backends.NetworkOn, 2: backends.NetworkHost}

func networkCode(n backends.Network) int64 {
	for i, m := range networkCodes {
		if m == n {
			return int64(i)
		}
	}
	return 1 // unreachable: every network is validated into a shape first
}

func networkOf(code int64) (backends.Network, error) {
	if code < 0 || code >= int64(len(networkCodes)) {
		return "", fmt.Errorf("unknown network setting %d; upgrade sandboxdesk", code)
	}
	return networkCodes[code], nil
}

func ms(v int64) time.Duration { return time.Duration(v) * time.Millisecond }

func fromNull(v sql.NullInt64) time.Time {
	if !v.Valid {
		return time.Time{}
	}
	return time.Unix(0, v.Int64).UTC()
}

// loadAll reads every sandbox of the root.
func (s *store) loadAll(ctx context.Context) ([]record, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT "+sandboxColumns+" FROM sandboxes ORDER BY created_at, id")
	if err != nil {
		return nil, fmt.Errorf("read sandboxes: %w", err)
	}
	defer rows.Close()
	var out []record
	for rows.Next() {
		r, err := scanRecord(rows)
		if err != nil {
			return nil, fmt.Errorf("read sandboxes: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// change is one transaction: rows to write, rows to delete, and the event
// that says why.
type change struct {
	put    []*record
	delete []string // ids
	event  ipc.Event
	// minor: bookkeeping (the last use) that may stay in memory only when
	// the disk is full
	minor bool
}

func (s *store) apply(ctx context.Context, c change) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("save state: %w", err)
	}
	defer tx.Rollback()
	for _, id := range c.delete {
		if _, err := tx.ExecContext(ctx, "DELETE FROM sandboxes WHERE id = ?", id); err != nil {
			return fmt.Errorf("save state: %w", err)
		}
	}
	for _, r := range c.put {
		_, err := tx.ExecContext(ctx, "INSERT OR REPLACE INTO sandboxes ("+sandboxColumns+
			") VALUES ("+placeholders(len(r.args()))+")", r.args()...)
		if err != nil {
			return fmt.Errorf("save sandbox %s: %w", r.FullName, err)
		}
	}
	if c.event.Kind != "" {
		e := c.event
		_, err := tx.ExecContext(ctx, "INSERT INTO events (at, kind, sandbox, id, state, message) VALUES (?,?,?,?,?,?)",
			e.Time.UnixNano(), string(e.Kind), e.Sandbox, e.ID, string(e.State), e.Message)
		if err != nil {
			return fmt.Errorf("save event: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("save state: %w", err)
	}
	return nil
}

// setting reads one setting; ok is false when it is unset.
func (s *store) setting(ctx context.Context, key string) (value string, ok bool, err error) {
	err = s.db.QueryRowContext(ctx, "SELECT value FROM settings WHERE key = ?", key).Scan(&value)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read setting %s: %w", key, err)
	}
	return value, true, nil
}

// setSettings writes settings in one transaction; a nil value unsets.
func (s *store) setSettings(ctx context.Context, values map[string]*string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("save settings: %w", err)
	}
	defer tx.Rollback()
	for k, v := range values {
		if v == nil {
			_, err = tx.ExecContext(ctx, "DELETE FROM settings WHERE key = ?", k)
		} else {
			_, err = tx.ExecContext(ctx, "INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)", k, *v)
		}
		if err != nil {
			return fmt.Errorf("save setting %s: %w", k, err)
		}
	}
	return tx.Commit()
}

// recentEvents returns up to n state and notice events of one sandbox,
// newest last.
func (s *store) recentEvents(ctx context.Context, fullName string, n int) ([]ipc.Event, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT seq, at, kind, sandbox, id, state, message FROM
		(SELECT * FROM events WHERE sandbox = ? ORDER BY seq DESC LIMIT ?) ORDER BY seq`, fullName, n)
	if err != nil {
		return nil, fmt.Errorf("read events: %w", err)
	}
	defer rows.Close()
	var out []ipc.Event
	for rows.Next() {
		var e ipc.Event
		var at int64
		var kind, state string
		if err := rows.Scan(&e.Seq, &at, &kind, &e.Sandbox, &e.ID, &state, &e.Message); err != nil {
			return nil, fmt.Errorf("read events: %w", err)
		}
		e.Time, e.Kind, e.State = time.Unix(0, at).UTC(), ipc.EventKind(kind), ipc.State(state)
		out = append(out, e)
	}
	return out, rows.Err()
}

// placeholders is n "?" for an INSERT, so a column added to the record
// cannot be forgotten in its VALUES.
func placeholders(n int) string { return strings.TrimSuffix(strings.Repeat("?,", n), ",") }

// privateFiles makes the first path if missing, and every path that
// exists readable and writable by its owner only.
func privateFiles(paths ...string) error {
	f, err := os.OpenFile(paths[0], os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	f.Close()
	for _, p := range paths {
		if err := os.Chmod(p, 0o600); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}
