//go:build unix

package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"syscall"
)

// openApp becomes the desktop app, with the same arguments; it returns
// only when it could not.
func openApp(args []string) error {
	app, err := appPath()
	if err != nil {
		return err
	}
	err = syscall.Exec(app, append([]string{app}, args...), os.Environ())
	return fmt.Errorf("open the desktop app %s: %w", app, err)
}

// serve becomes the controller program for root, with the same pid (a
// client that started `sandboxdesk serve` waits for that process), stdio
// and signals; it returns only when it could not.
func serve(_ context.Context, root string, _ *slog.Logger) error {
	p, err := servePath()
	if err != nil {
		return err
	}
	err = syscall.Exec(p, []string{p, "serve", "--root", root}, os.Environ())
	return fmt.Errorf("start the controller program %s: %w", p, err)
}
