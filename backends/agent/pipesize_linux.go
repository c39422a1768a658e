package agent

import (
	"os"

	"golang.org/x/sys/unix"

	"sandboxdesk/stream"
)

// growPipe asks for a pipe of stream.ChunkSize, best effort: past the
// user's share of pipe memory the kernel refuses, and the default does.
func growPipe(f *os.File) {
	if rc, err := f.SyscallConn(); err == nil {
		rc.Control(func(fd uintptr) { unix.FcntlInt(fd, unix.F_SETPIPE_SZ, stream.ChunkSize) })
	}
}
