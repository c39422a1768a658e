//go:build linux

package bubblewrap

import (
	"os"
	"path/filepath"
	"testing"
)

// TestUIDRegistryRecordUnderWay: a uid another controller has just
// created its record for, owner not yet written, is passed over, not an
// error ("record host uid N: file exists").
func TestUIDRegistryRecordUnderWay(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip(onlyRootAllocates)
	}
	reg := &uidRegistry{dir: filepath.Join(t.TempDir(), "uids"), first: 1000000, last: 1000005, taken: func(int) bool { return false }}
	state := filepath.Join(t.TempDir(), "a")
	os.MkdirAll(state, 0o700)
	d, err := reg.open()
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	if err := os.WriteFile(filepath.Join(reg.dir, "1000001"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := reg.acquire(state); err != nil || got != 1000002 {
		t.Fatalf("beside a record under way: %d, %v; want 1000002", got, err)
	}
}
