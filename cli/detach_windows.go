package cli

import (
	"errors"
	"syscall"
)

// detached runs a child without a console of its own that would close
// with the CLI.
func detached() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: 0x00000008 /* DETACHED_PROCESS */}
}

// terminate: Windows has no polite signal for another console process.
func terminate(pid int) error {
	return errors.New("it does not answer on its socket; close it from its window, or end it in Task Manager")
}
