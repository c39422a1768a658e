package stream

import (
	"errors"
	"io"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// spliced is a pipe whose bytes go to a socket as frame payloads that the
// kernel moves from the one to the other (splice): they never pass
// through this process, where a read and a write would copy each twice.
type spliced struct {
	src, dst syscall.RawConn
	// blocking: the pipe is not the runtime poller's (a standard input
	// inherited in blocking mode): waiting for it blocks a thread
	blocking bool
}

// openSplice is r and conn as a spliced pair; false when r is not a pipe
// or conn not a socket, and the caller copies.
func openSplice(r io.Reader, conn io.Writer) (*spliced, bool) {
	// a file's methods rather than *os.File: io.Copy from a file reaches
	// a ReadFrom with the file wrapped (os's fileWithoutWriteTo)
	src, ok := r.(interface {
		Stat() (os.FileInfo, error)
		SyscallConn() (syscall.RawConn, error)
	})
	if !ok {
		return nil, false
	}
	if st, err := src.Stat(); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		return nil, false
	}
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return nil, false
	}
	dst, err := sc.SyscallConn()
	if err != nil {
		return nil, false
	}
	srcRC, err := src.SyscallConn()
	if err != nil {
		return nil, false
	}
	sp := &spliced{src: srcRC, dst: dst}
	srcRC.Control(func(fd uintptr) {
		fl, err := unix.FcntlInt(fd, unix.F_GETFL, 0)
		sp.blocking = err == nil && fl&unix.O_NONBLOCK == 0
	})
	return sp, true
}

// pending waits until the pipe holds bytes or its writers are gone, and
// returns how many it holds, up to ChunkSize: 0 at its end. Only this
// side reads the pipe: that many are there for the next frame.
func (s *spliced) pending() (int, error) {
	var n int
	var err error
	ready := func(fd uintptr) bool {
		n, err = unix.IoctlGetInt(int(fd), unix.TIOCINQ) // FIONREAD: what a pipe holds
		if err != nil || n > 0 {
			return true
		}
		// nothing held: the end when no writer is left, else wait
		wait := 0
		if s.blocking {
			wait = -1
		}
		pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		if _, perr := unix.Poll(pfd, wait); perr == nil && pfd[0].Revents&unix.POLLHUP != 0 {
			// the last writer may have written just before it left
			n, err = unix.IoctlGetInt(int(fd), unix.TIOCINQ)
			return true
		}
		return false
	}
	var rerr error
	if s.blocking {
		rerr = s.src.Control(func(fd uintptr) {
			for !ready(fd) {
			}
		})
	} else {
		rerr = s.src.Read(ready)
	}
	if rerr != nil {
		return 0, rerr
	}
	return min(n, ChunkSize), err
}

// move sends n bytes the pipe holds, a frame's payload whose header went.
// Where the socket takes no splice, they go as a read and a write to w.
func (s *spliced) move(w io.Writer, n int) error {
	left := n
	var serr error
	cerr := s.src.Control(func(sfd uintptr) {
		werr := s.dst.Write(func(dfd uintptr) bool {
			for left > 0 {
				m, err := unix.Splice(int(sfd), nil, int(dfd), nil, left, unix.SPLICE_F_MOVE|unix.SPLICE_F_NONBLOCK)
				if err == unix.EINTR {
					continue
				}
				if err == unix.EAGAIN {
					return false // the socket is full: wait until it takes more
				}
				if err != nil {
					serr = err
					return true
				}
				left -= int(m)
			}
			return true
		})
		if serr == nil {
			serr = werr
		}
	})
	if cerr != nil {
		return cerr
	}
	if errors.Is(serr, unix.EINVAL) && left == n {
		return s.copy(w, n)
	}
	return serr
}

// copy sends n bytes the pipe holds as a read and a write to w.
func (s *spliced) copy(w io.Writer, n int) error {
	buf := getChunk(n)
	defer putChunk(buf)
	got := 0
	var rerr error
	cerr := s.src.Read(func(fd uintptr) bool {
		for got < n {
			m, err := unix.Read(int(fd), buf[got:n])
			if err == unix.EINTR {
				continue
			}
			if err == unix.EAGAIN {
				return false
			}
			if err != nil || m == 0 {
				rerr = err
				if rerr == nil {
					rerr = io.ErrUnexpectedEOF
				}
				return true
			}
			got += m
		}
		return true
	})
	if cerr != nil {
		return cerr
	}
	if rerr != nil {
		return rerr
	}
	_, err := w.Write(buf[:n])
	return err
}
