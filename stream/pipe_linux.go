package stream

import (
	"os"

	"golang.org/x/sys/unix"
)

// GrowPipe asks for f, when it is a pipe, to hold ChunkSize bytes, so a
// reader takes whole frames' worth at a time rather than the 64 KiB of
// the kernel's default. Best effort: past the user's share of pipe memory
// the kernel refuses, and the pipe works as it was.
func GrowPipe(f *os.File) {
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	rc.Control(func(fd uintptr) {
		var st unix.Stat_t
		if unix.Fstat(int(fd), &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFIFO {
			unix.FcntlInt(fd, unix.F_SETPIPE_SZ, ChunkSize)
		}
	})
}
