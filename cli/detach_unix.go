//go:build unix

package cli

import "syscall"

// detached runs a child in its own session, so it outlives the terminal
// and the CLI that started it.
func detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// terminate asks a controller that no longer answers on its socket to stop
// gracefully, as `serve` does on SIGTERM.
func terminate(pid int) error { return syscall.Kill(pid, syscall.SIGTERM) }
