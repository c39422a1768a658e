package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"

	"sandboxdesk/cli"
)

// openApp starts the desktop app with the same arguments and ends this
// console command; it returns only when it could not.
func openApp(args []string) error {
	app, err := appPath()
	if err != nil {
		return err
	}
	cmd := exec.Command(app, args...)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("open the desktop app %s: %w", app, err)
	}
	os.Exit(0)
	return nil
}

// serve runs the controller program for root on this console, and ends
// with its exit status. Windows has no exec: this command waits for it.
// Ctrl-C and the console's closing reach the controller directly, as it
// shares the console; serve's context ending (this command got them too)
// is no reason to stop waiting, since the controller stops its sandboxes
// first.
func serve(_ context.Context, root string, _ *slog.Logger) error {
	p, err := servePath()
	if err != nil {
		return err
	}
	cmd := exec.Command(p, "serve", "--root", root)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if !hasConsole() {
		// started detached (by a client starting a controller): Windows
		// would give a console program a window of its own
		cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.DETACHED_PROCESS}
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start the controller program %s: %w", p, err)
	}
	err = cmd.Wait()
	if ee, ok := errors.AsType[*exec.ExitError](err); ok {
		return cli.ExitStatus(ee.ExitCode()) // it said why on stderr
	}
	if err != nil {
		return fmt.Errorf("run the controller program %s: %w", p, err)
	}
	return nil
}

var getConsoleWindow = windows.NewLazySystemDLL("kernel32.dll").NewProc("GetConsoleWindow")

// hasConsole reports whether this process is attached to a console.
func hasConsole() bool {
	if getConsoleWindow.Find() != nil {
		return true
	}
	w, _, _ := getConsoleWindow.Call()
	return w != 0
}
