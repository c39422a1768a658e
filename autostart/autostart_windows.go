package autostart

import (
	"errors"
	"fmt"

	"golang.org/x/sys/windows/registry"
)

// Enable writes the Run value, replacing one that names another program
// (an older install elsewhere).
func (l Login) Enable() error {
	cmd, err := runCommand(l.Name, l.Exec)
	if err != nil {
		return err
	}
	k, _, err := registry.CreateKey(registry.CURRENT_USER, l.key(), registry.SET_VALUE)
	if err != nil {
		return fmt.Errorf("open HKCU\\%s: %w", l.key(), err)
	}
	defer k.Close()
	if err := k.SetStringValue(l.Name, cmd); err != nil {
		return fmt.Errorf("write the Run value %s in HKCU\\%s: %w", l.Name, l.key(), err)
	}
	return nil
}

// Disable deletes the Run value; one already gone is not an error.
func (l Login) Disable() error {
	if err := checkName(l.Name); err != nil {
		return err
	}
	k, err := registry.OpenKey(registry.CURRENT_USER, l.key(), registry.SET_VALUE)
	if errors.Is(err, registry.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open HKCU\\%s: %w", l.key(), err)
	}
	defer k.Close()
	if err := k.DeleteValue(l.Name); err != nil && !errors.Is(err, registry.ErrNotExist) {
		return fmt.Errorf("delete the Run value %s in HKCU\\%s: %w", l.Name, l.key(), err)
	}
	return nil
}

// Enabled tells whether the Run value is in place.
func (l Login) Enabled() (bool, error) {
	if err := checkName(l.Name); err != nil {
		return false, err
	}
	k, err := registry.OpenKey(registry.CURRENT_USER, l.key(), registry.QUERY_VALUE)
	if errors.Is(err, registry.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("open HKCU\\%s: %w", l.key(), err)
	}
	defer k.Close()
	_, _, err = k.GetValue(l.Name, nil)
	if errors.Is(err, registry.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read the Run value %s in HKCU\\%s: %w", l.Name, l.key(), err)
	}
	return true, nil
}

func (l Login) key() string {
	if l.Dir != "" {
		return l.Dir
	}
	return runKey
}
