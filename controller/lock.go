package controller

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"sandboxdesk/ipc"
)

// rootLock is the lock file that makes one controller the owner of a root.
// The operating system releases it when the process dies, however it dies,
// so a crash never leaves a root locked.
type rootLock struct {
	f *os.File
}

// lockName is the root's lock file; it names its holder's pid.
const lockName = "controller.lock"

// LockHolder is the pid of the controller that holds root's lock, or 0 when
// none does. It finds a controller that no longer answers on its socket
// (one stopping its sandboxes, or whose socket was removed). To know, it
// takes the lock for an instant when it is free and gives it back.
func LockHolder(root string) (int, error) {
	path := filepath.Join(root, lockName)
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read the lock of %s: %w", root, err)
	}
	defer f.Close()
	if tryLock(f) == nil {
		unlock(f)
		return 0, nil
	}
	var b []byte
	// a holder writes its pid just after it takes the lock
	for i := 0; i < 50 && len(strings.TrimSpace(string(b))) == 0; i++ {
		if i > 0 {
			time.Sleep(10 * time.Millisecond)
		}
		if b, err = os.ReadFile(path); err != nil {
			return 0, fmt.Errorf("read the lock of %s: %w", root, err)
		}
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("the lock of %s is held, but names no pid (%q)", root, strings.TrimSpace(string(b)))
	}
	return pid, nil
}

// lockRoot takes the root's lock or says which process holds it.
func lockRoot(root string) (*rootLock, error) {
	path := filepath.Join(root, lockName)
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
