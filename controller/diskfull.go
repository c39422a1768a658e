package controller

import (
	"errors"
	"fmt"
	"strings"
	"syscall"

	"sandboxdesk/ipc"
)

// diskError words an error for the person who reads it: a full disk (or
// quota) names the folder that could not be written and what to do; any
// other error is wrapped as it is.
func diskError(what, folder string, err error) error {
	if isDiskFull(err) {
		return ipc.Errorf(ipc.ErrUnavailable, "%s: %w: %s has no space left; free some space (remove sandboxes you no longer need with 'sandboxdesk rm') and try again", what, errDiskFull, folder)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// errDiskFull is in every error diskError words for a full disk.
var errDiskFull = errors.New("the disk is full")

// isDiskFull recognises "no space left" from the OS and from SQLite,
// which reports it in its own words.
func isDiskFull(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, errDiskFull) || errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "database or disk is full") || strings.Contains(msg, "no space left")
}
