package rootlock

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"sandboxdesk/ipc"
)

// TestHolderFollowsTheLock: no lock file, a free lock and a released one
// have no holder; a held one names its holder, and a second controller is
// refused with a conflict that names it too.
func TestHolderFollowsTheLock(t *testing.T) {
	root := t.TempDir()
	if pid, err := Holder(root); pid != 0 || err != nil {
		t.Fatalf("a root never locked: holder %d, %v", pid, err)
	}
	l, err := Take(root)
	if err != nil {
		t.Fatal(err)
	}
	if pid, err := Holder(root); pid != os.Getpid() || err != nil {
		t.Errorf("a held root: holder %d, %v; want this process (%d)", pid, err, os.Getpid())
	}
	second, err := Take(root)
	if err == nil {
		second.Release()
		t.Fatal("a second lock on a held root was granted")
	}
	if !errors.Is(err, ipc.ErrConflict) {
		t.Errorf("second lock: %v, want a conflict", err)
	}
	l.Release()
	if pid, err := Holder(root); pid != 0 || err != nil {
		t.Errorf("a released root: holder %d, %v", pid, err)
	}
}

// TestHolderOfALockNamingNoPid: a held lock whose file names no pid (a
// holder that could not write it) is an error, not a guess.
func TestHolderOfALockNamingNoPid(t *testing.T) {
	root := t.TempDir()
	l, err := Take(root)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if err := os.WriteFile(filepath.Join(root, name), []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if pid, err := Holder(root); err == nil {
		t.Errorf("holder %d of a lock naming no pid, want an error", pid)
	}
}
