//go:build unix

package cli

import "syscall"

// terminate asks a controller that no longer answers on its socket to stop
// gracefully, as `serve` and the app do on SIGTERM.
func terminate(pid int) error { return syscall.Kill(pid, syscall.SIGTERM) }
