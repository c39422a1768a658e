//go:build linux || darwin

package autostart

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// removeEntry deletes the entry file at path (an XDG entry, a LaunchAgent);
// one already gone is not an error.
func removeEntry(path, what string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove the %s: %w", what, err)
	}
	return nil
}

// readEntry reads the entry file at path, at most 64 KiB of it (an entry
// is a few lines; more is not one of ours); found is false when there is
// none.
func readEntry(path, what string) (data []byte, found bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read the %s: %w", what, err)
	}
	defer f.Close()
	data, err = io.ReadAll(io.LimitReader(f, 64<<10))
	if err != nil {
		return nil, false, fmt.Errorf("read the %s %s: %w", what, path, err)
	}
	return data, true, nil
}
