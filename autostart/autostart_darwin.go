package autostart

import (
	"fmt"
	"os"
	"path/filepath"
)

// Enable writes the LaunchAgent; launchd reads it at the next login (it is
// not loaded now, which would open a second app at once).
func (l Login) Enable() error {
	data, err := launchAgent(l.Name, l.Exec)
	if err != nil {
		return err
	}
	path, err := l.path()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write the LaunchAgent: %w", err)
	}
	// a new file renamed over the old one: launchd never reads half of it
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+l.Name+"-*.plist")
	if err != nil {
		return fmt.Errorf("write the LaunchAgent: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write the LaunchAgent: %w", err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("write the LaunchAgent: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write the LaunchAgent: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write the LaunchAgent: %w", err)
	}
	return nil
}

// Disable removes the LaunchAgent; one already gone is not an error.
func (l Login) Disable() error {
	path, err := l.path()
	if err != nil {
		return err
	}
	return removeEntry(path, "LaunchAgent")
}

// Enabled tells whether a LaunchAgent of this name is in place and reads
// as one.
func (l Login) Enabled() (bool, error) {
	path, err := l.path()
	if err != nil {
		return false, err
	}
	data, found, err := readEntry(path, "LaunchAgent")
	if !found || err != nil {
		return false, err
	}
	label, _, err := readLaunchAgent(data)
	if err != nil {
		return false, fmt.Errorf("the LaunchAgent %s: %w", path, err)
	}
	return label == l.Name, nil
}

func (l Login) path() (string, error) {
	if err := checkName(l.Name); err != nil {
		return "", err
	}
	dir := l.Dir
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("find the LaunchAgents folder: %w", err)
		}
		dir = filepath.Join(home, "Library", "LaunchAgents")
	}
	return filepath.Join(dir, l.Name+".plist"), nil
}
