package main

import "syscall"

// ownMountNS runs a command in a mount namespace of its own, as the
// bubblewrap backend runs its root launcher.
func ownMountNS() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS}
}
