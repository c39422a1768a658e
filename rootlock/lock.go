package rootlock

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"sandboxdesk/ipc"
)

// Lock is a held lock on a root: its holder is the root's one controller.
type Lock struct {
	f *os.File
}

// name is the root's lock file; it names its holder's pid.
const name = "controller.lock"

// Holder is the pid of the controller that holds root's lock, or 0 when
// none does. It finds a controller that no longer answers on its socket
// (one stopping its sandboxes, or whose socket was removed). To know, it
// takes the lock for an instant when it is free and gives it back.
func Holder(root string) (int, error) {
	path := filepath.Join(root, name)
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

// Take takes the root's lock and writes this process's pid in it, or says
// which process holds it (an ipc.ErrConflict).
func Take(root string) (*Lock, error) {
	path := filepath.Join(root, name)
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
	return &Lock{f: f}, nil
}

// Release gives the root up.
func (l *Lock) Release() {
	unlock(l.f)
	l.f.Close()
}
