//go:build unix

package sandboxes

import "syscall"

// detached runs a child in its own session, so it outlives the terminal
// and the program that started it.
func detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
