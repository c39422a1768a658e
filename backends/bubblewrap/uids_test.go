//go:build linux

package bubblewrap

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestUIDRegistry(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip(onlyRootAllocates)
	}
	roots := t.TempDir()
	dir := func(name string) string {
		p := filepath.Join(roots, name)
		os.MkdirAll(p, 0o700)
		return p
	}
	reg := &uidRegistry{dir: filepath.Join(t.TempDir(), "uids"), first: 1000000, last: 1000005,
		taken: func(uid int) bool { return uid == 1000002 }} // a host user has 1000002
	steps := []struct {
		what     string
		stateDir string
		before   func()
		want     int
	}{
		{what: "the first sandbox gets the first uid after the probe's", stateDir: dir("a"), want: 1000001},
		{what: "a second one skips a uid the host's users have", stateDir: dir("b"), want: 1000003},
		{what: "a sandbox keeps its uid", stateDir: dir("a"), want: 1000001},
		{what: "a sandbox whose folder is gone frees its uid", stateDir: dir("c"), want: 1000001,
			before: func() { os.RemoveAll(filepath.Join(roots, "a")) }},
		{what: "a lost registry gives a sandbox back the uid its folder records", stateDir: filepath.Join(roots, "b"), want: 1000003,
			before: func() { os.RemoveAll(reg.dir) }},
		{what: "and so does the next, from its own record", stateDir: filepath.Join(roots, "c"), want: 1000001},
		{what: "a sandbox another took the uid of gets a new one", stateDir: dir("d"), want: 1000004,
			before: func() { os.WriteFile(uidFilePath(filepath.Join(roots, "d")), []byte("1000001\n"), 0o644) }},
	}
	for _, s := range steps {
		if s.before != nil {
			s.before()
		}
		got, err := reg.acquire(s.stateDir)
		if err != nil || got != s.want {
			t.Fatalf("%s: %d, %v; want %d", s.what, got, err, s.want)
		}
	}
	if _, err := reg.acquire(dir("e")); err != nil {
		t.Fatal(err)
	}
	if _, err := reg.acquire(dir("f")); err == nil || !strings.Contains(err.Error(), "no free host uid") {
		t.Errorf("a full registry: %v", err)
	}
	reg.release(filepath.Join(roots, "e"))
	if got, err := reg.acquire(dir("f")); err != nil || got != 1000005 {
		t.Errorf("after a release: %d, %v; want 1000005", got, err)
	}
	os.Chmod(reg.dir, 0o777)
	if _, err := reg.acquire(dir("g")); err == nil {
		t.Error("a registry others may change was used")
	}
}

// A controller killed between creating a registry entry and writing it
// leaves an empty file; the uid is free again, not lost for good.
func TestUIDRegistryEmptyEntryIsFreed(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip(onlyRootAllocates)
	}
	reg := &uidRegistry{dir: filepath.Join(t.TempDir(), "uids"), first: 2000000, last: 2000001,
		taken: func(int) bool { return false }}
	if err := os.MkdirAll(reg.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(reg.dir, "2000001"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	stateDir := filepath.Join(t.TempDir(), "a")
	os.MkdirAll(stateDir, 0o700)
	if got, err := reg.acquire(stateDir); err != nil || got != 2000001 {
		t.Fatalf("acquire beside an empty entry: %d, %v; want 2000001", got, err)
	}
}
