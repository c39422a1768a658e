package syscallfilter

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Load installs an encoded filter on every thread of this process (a Go
// program's threads are many and any may start the next command), and so
// on every process it starts from now on. The caller needs CAP_SYS_ADMIN
// or no_new_privs set.
func Load(prog []byte) error {
	if len(prog) == 0 || len(prog)%8 != 0 {
		return fmt.Errorf("load the seccomp filter: %d bytes is no filter", len(prog))
	}
	fprog := unix.SockFprog{Len: uint16(len(prog) / 8), Filter: (*unix.SockFilter)(unsafe.Pointer(&prog[0]))}
	tid, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fprog)))
	if errno != 0 {
		return fmt.Errorf("load the seccomp filter: %w", errno)
	}
	if tid != 0 {
		// TSYNC names the thread it could not bring under the filter
		return fmt.Errorf("load the seccomp filter: thread %d refused it", tid)
	}
	return nil
}
