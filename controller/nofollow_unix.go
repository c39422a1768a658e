//go:build unix

package controller

import (
	"os"
	"syscall"
)

// openNoFollow opens a file for reading, failing on a symbolic link
// rather than following it.
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}
