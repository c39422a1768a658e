package autostart

import (
	"fmt"
	"os"
	"path/filepath"
)

// Enable writes the XDG autostart entry; the desktop reads it at the next
// login (nothing is started now).
func (l Login) Enable() error {
	data, err := xdgEntry(l.Name, l.Exec)
	if err != nil {
		return err
	}
	path, err := l.path()
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("write the autostart entry: %w", err)
	}
	// a new file renamed over the old one: a login never reads half of it
	tmp, err := os.CreateTemp(dir, "."+l.Name+"-*.desktop")
	if err != nil {
		return fmt.Errorf("write the autostart entry: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(0o644)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("write the autostart entry: %w", err)
	}
	return nil
}

// Disable removes the entry; one already gone is not an error. An entry
// the user turned off in their desktop's settings goes as well: off is
// what they asked for both times.
func (l Login) Disable() error {
	path, err := l.path()
	if err != nil {
		return err
	}
	return removeEntry(path, "autostart entry")
}

// Enabled tells whether the entry is there and on.
func (l Login) Enabled() (bool, error) {
	path, err := l.path()
	if err != nil {
		return false, err
	}
	data, found, err := readEntry(path, "autostart entry")
	if !found || err != nil {
		return false, err
	}
	on, err := xdgEntryOn(data)
	if err != nil {
		return false, fmt.Errorf("the autostart entry %s: %w", path, err)
	}
	return on, nil
}

// path is NAME.desktop in $XDG_CONFIG_HOME/autostart (~/.config/autostart
// when unset or, as the spec says, not absolute), or in Dir.
func (l Login) path() (string, error) {
	if err := checkName(l.Name); err != nil {
		return "", err
	}
	dir := l.Dir
	if dir == "" {
		config := os.Getenv("XDG_CONFIG_HOME")
		if !filepath.IsAbs(config) {
			home, err := os.UserHomeDir()
			if err != nil {
				return "", fmt.Errorf("find the autostart folder: %w", err)
			}
			config = filepath.Join(home, ".config")
		}
		dir = filepath.Join(config, "autostart")
	}
	return filepath.Join(dir, l.Name+".desktop"), nil
}
