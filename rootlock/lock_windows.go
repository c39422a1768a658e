//go:build windows

package rootlock

import (
	"os"

	"golang.org/x/sys/windows"
)

// lockRegion is a byte range far past the pid the file holds: Windows locks
// are mandatory, and locking the pid itself would stop the next process
// from reading who holds the root.
func lockRegion() *windows.Overlapped { return &windows.Overlapped{OffsetHigh: 1} }

func tryLock(f *os.File) error {
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, lockRegion())
}

func unlock(f *os.File) { windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, lockRegion()) }
