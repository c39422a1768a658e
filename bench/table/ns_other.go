//go:build unix && !linux

package main

import "syscall"

// ownMountNS: bubblewrap is Linux only; elsewhere there is no raw run.
func ownMountNS() *syscall.SysProcAttr { return nil }
