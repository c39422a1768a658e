package controller

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"sandboxdesk/ipc"
)

// rootLock is the lock file that makes one controller the owner of a root.
// The operating system releases it when the process dies, however it dies,
// so a crash never leaves a root locked.
type rootLock struct {
	f *os.File
}

// lockRoot takes the root's lock or says which process holds it.
func lockRoot(root string) (*rootLock, error) {
	path := filepath.Join(root, "controller.lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock root %s: %w", root, err)
	}
	if err := tryLock(f); err != nil {
		f.Close()
		holder := "another process"
		if b, rerr := os.ReadFile(path); rerr == nil {
			if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); perr == nil {
				holder = "sandboxdesk pid " + strconv.Itoa(pid)
			}
		}
		return nil, ipc.Errorf(ipc.ErrConflict, "root %s is already in use by %s (stop it, or pass another --root)", root, holder)
	}
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
		f.Sync()
	}
	return &rootLock{f: f}, nil
}

func (l *rootLock) release() {
	unlock(l.f)
	l.f.Close()
}
