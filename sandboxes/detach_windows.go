package sandboxes

import "syscall"

// detached runs a child without a console of its own that would close
// with the program that started it.
func detached() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: 0x00000008 /* DETACHED_PROCESS */}
}
