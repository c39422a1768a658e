package controller

import (
	"fmt"
	"os"
)

// openNoFollow opens a file for reading, refusing a link or junction. The
// check and the open are two steps; on Windows the state folder is not
// writable from inside a sandbox, so nobody can swap it in between.
func openNoFollow(path string) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	return os.Open(path)
}
