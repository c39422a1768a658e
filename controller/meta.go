package controller

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"time"
	"unicode"

	"sandboxdesk/backends"
	"sandboxdesk/ipc"
	"sandboxdesk/rules"
)

// metaFile is the sandbox's description in its own state folder, written
// by the controller at create. The database is the truth; this file is
// what lets a lost or damaged database be rebuilt from what is on disk.
const metaFile = "sandbox.json"

// maxMeta bounds what is read: a larger file is not one this controller
// wrote.
const maxMeta = 16 << 10

// meta is what sandbox.json holds.
type meta struct {
	ID            string      `json:"id"`
	Prefix        string      `json:"prefix"`
	Name          string      `json:"name"`
	Backend       string      `json:"backend"`
	Image         string      `json:"image"`
	ImageDigest   string      `json:"imageDigest"`
	MemoryMiB     int64       `json:"memoryMiB"`
	CPUs          int         `json:"cpus"`
	DiskMiB       int64       `json:"diskMiB"`
	Network       metaNetwork `json:"network"`
	IdleTimeoutMs int64       `json:"idleTimeoutMs"`
	MaxLifetimeMs int64       `json:"maxLifetimeMs"`
	StopGraceMs   int64       `json:"stopGraceMs"`
	CreatedAt     time.Time   `json:"createdAt"`
	// NestedUserns is absent from files written before it existed: off.
	NestedUserns bool `json:"nestedUserns,omitempty"`
}

// idRE is a sandbox's id; compiled on first use, not at start, since the
// command line links the controller (for serve) but rarely runs it.
var idRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^sb-[0-9a-f]{16}$`) })

func metaOf(r *record) meta {
	return meta{ID: r.ID, Prefix: r.Prefix, Name: r.Name, Backend: r.Backend, Image: r.Image, ImageDigest: r.ImageDigest,
		MemoryMiB: r.MemoryMiB, CPUs: r.CPUs, DiskMiB: r.DiskMiB, Network: metaNetwork(r.Network),
		IdleTimeoutMs: r.IdleTimeout.Milliseconds(), MaxLifetimeMs: r.MaxLifetime.Milliseconds(),
		StopGraceMs: r.StopGrace.Milliseconds(), CreatedAt: r.CreatedAt, NestedUserns: r.NestedUserns}
}

// writeMeta writes r's sandbox.json into dir atomically: a file of its
// own, synced, renamed over whatever was there (a rename replaces a link
// rather than following it).
func writeMeta(dir string, r *record) error {
	return placeMeta(dir, r, func(f *os.File) error { return f.Sync() })
}

// writeMetaUnsynced writes r's sandbox.json as writeMeta does, but
// returns with the file still to be synced: a create spends no time on
// it (see build). Until the returned file is synced, a crash of the host
// may leave the new sandbox.json empty; describeAll rewrites it at the
// next launch from the database.
func writeMetaUnsynced(dir string, r *record) (*os.File, error) {
	var unsynced *os.File
	err := placeMeta(dir, r, func(f *os.File) (err error) {
		unsynced, err = os.Open(f.Name())
		return err
	})
	if err != nil {
		if unsynced != nil {
			unsynced.Close()
		}
		return nil, err
	}
	return unsynced, nil
}

// placeMeta writes r's sandbox.json to a file of its own, calls before
// on it, and renames it over whatever was there.
func placeMeta(dir string, r *record, before func(*os.File) error) error {
	data, err := json.MarshalIndent(metaOf(r), "", "  ")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".sandbox-*.json")
	if err != nil {
		return err
	}
	_, err = f.Write(append(data, '\n'))
	if err == nil {
		err = before(f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(dir, metaFile))
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// readMeta reads the sandbox.json of the state folder dir, named for the
// sandbox id it should describe. The file is hostile input: a link is not
// followed, only a small regular file is read, and every field is checked
// as a request would be.
func readMeta(dir, id string) (record, error) {
	f, err := openNoFollow(filepath.Join(dir, metaFile))
	if err != nil {
		return record{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return record{}, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxMeta {
		return record{}, fmt.Errorf("%s is not a small regular file", metaFile)
	}
	var m meta
	if err := json.NewDecoder(io.LimitReader(f, maxMeta)).Decode(&m); err != nil {
		return record{}, fmt.Errorf("read %s: %w", metaFile, err)
	}
	if err := m.check(id); err != nil {
		return record{}, fmt.Errorf("%s: %w", metaFile, err)
	}
	full, _ := fullName(m.Prefix, m.Name)
	return record{
		ID: m.ID, FullName: full, Prefix: m.Prefix, Name: m.Name, Backend: m.Backend,
		Image: m.Image, ImageDigest: m.ImageDigest, MemoryMiB: m.MemoryMiB, CPUs: m.CPUs, DiskMiB: m.DiskMiB,
		Network: backends.Network(m.Network), IdleTimeout: ms(m.IdleTimeoutMs), MaxLifetime: ms(m.MaxLifetimeMs),
		StopGrace: ms(m.StopGraceMs), State: ipc.StateStopped, CreatedAt: m.CreatedAt.UTC(),
		NestedUserns: m.NestedUserns,
	}, nil
}

// check validates every field of a sandbox.json as the controller would
// have when it wrote it.
func (m meta) check(id string) error {
	if m.ID != id || !idRE().MatchString(id) {
		return fmt.Errorf("id %q does not match its folder %q", m.ID, id)
	}
	if _, err := fullName(m.Prefix, m.Name); err != nil {
		return err
	}
	for what, v := range map[string]string{"backend": m.Backend, "image": m.Image, "image digest": m.ImageDigest} {
		if len(v) > 256 || !printable(v) {
			return fmt.Errorf("%s is not a plain short text", what)
		}
	}
	if m.Backend == "" || m.Image == "" {
		return errors.New("no backend or image")
	}
	rng, _ := rules.RangesFor(backends.KindProcess) // the widest: any kind's value fits

	switch {
	case m.MemoryMiB != 0 && !rng.MemoryMiB.Contains(m.MemoryMiB),
		m.CPUs != 0 && !rng.CPUs.Contains(int64(m.CPUs)),
		m.DiskMiB != 0 && !rng.DiskMiB.Contains(m.DiskMiB):
		return errors.New("a capacity is out of range")
	case m.IdleTimeoutMs < 0 || m.IdleTimeoutMs > maxCeiling.Milliseconds(),
		m.MaxLifetimeMs < 0 || m.MaxLifetimeMs > maxCeiling.Milliseconds(),
		m.StopGraceMs < 0 || m.StopGraceMs > maxStopGrace.Milliseconds():
		return errors.New("a time limit is out of range")
	case m.CreatedAt.IsZero() || m.CreatedAt.Year() < 2000 || m.CreatedAt.Year() > 9999:
		return errors.New("no creation time")
	}
	if n, err := backends.ParseNetwork(string(m.Network)); err != nil || m.Network == "" || n != backends.Network(m.Network) {
		return errors.New("no valid network setting")
	}
	return nil
}

// metaNetwork is sandbox.json's network: "on", "off" or "host". Files
// written before "host" existed hold true (on) or false (off).
type metaNetwork backends.Network

func (n *metaNetwork) UnmarshalJSON(b []byte) error {
	var on bool
	if json.Unmarshal(b, &on) == nil {
		*n = metaNetwork(backends.NetworkOff)
		if on {
			*n = metaNetwork(backends.NetworkOn)
		}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("network: %w", err)
	}
	*n = metaNetwork(s)
	return nil
}

func printable(s string) bool {
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}
