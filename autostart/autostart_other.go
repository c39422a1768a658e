//go:build !linux && !darwin && !windows

package autostart

import (
	"fmt"
	"runtime"
)

func (l Login) Enable() error { return l.unsupported() }

func (l Login) Disable() error { return l.unsupported() }

func (l Login) Enabled() (bool, error) { return false, l.unsupported() }

func (l Login) unsupported() error {
	return fmt.Errorf("sandboxdesk does not know how %s starts programs at login", runtime.GOOS)
}
