package stream

import (
	"encoding/binary"
	"errors"
	"io"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// spliceFrom sends what the pipe r holds to the connection under f as
// frames whose payload the kernel moves from the pipe to the socket
// (splice): the bytes never pass through this process, where a read and
// a write would copy each of them twice. A frame is what the pipe holds
// when it is read (FIONREAD), up to ChunkSize, so its length is known
// before its header goes. handled is false, with nothing sent, when r is
// not a pipe or the connection not a socket: the caller copies.
func (f *Writer) spliceFrom(r io.Reader) (total int64, handled bool, err error) {
	src, ok := r.(*os.File)
	if !ok || !isPipe(src) {
		return 0, false, nil
	}
	conn := f.W
	if d, ok := conn.(deciding); ok {
		conn = d.s.w
	}
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return 0, false, nil
	}
	dst, err := sc.SyscallConn()
	if err != nil {
		return 0, false, nil
	}
	srcRC, err := src.SyscallConn()
	if err != nil {
		return 0, false, nil
	}
	for {
		n, err := pending(srcRC)
		if err != nil {
			return total, true, err
		}
		if n == 0 {
			return total, true, nil // the writers are gone and the pipe is empty
		}
		if err := f.spliceFrame(srcRC, dst, n); err != nil {
			return total, true, err
		}
		total += int64(n)
	}
}

// isPipe reports whether f is a pipe (a FIFO).
func isPipe(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeNamedPipe != 0
}

// pending waits until the pipe holds bytes or its writers are gone, and
// returns how many it holds, up to ChunkSize: 0 at its end.
func pending(rc syscall.RawConn) (int, error) {
	var n int
	var err error
	rerr := rc.Read(func(fd uintptr) bool {
		n, err = unix.IoctlGetInt(int(fd), unix.TIOCINQ) // FIONREAD: what a pipe holds
		if err != nil || n > 0 {
			return true
		}
		// nothing held: the end when no writer is left, else wait
		pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		if _, perr := unix.Poll(pfd, 0); perr == nil && pfd[0].Revents&unix.POLLHUP != 0 {
			return true
		}
		return false
	})
	if rerr != nil {
		return 0, rerr
	}
	return min(n, ChunkSize), err
}

// spliceFrame sends one frame of the n bytes the pipe holds: the header,
// then the payload moved by the kernel. Only this side reads the pipe, so
// the n bytes are there to move. Where the socket takes no splice, the
// payload goes as a read and a write.
func (f *Writer) spliceFrame(src, dst syscall.RawConn, n int) error {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	var hdr [5]byte
	hdr[0] = f.Typ
	binary.BigEndian.PutUint32(hdr[1:], uint32(n))
	if _, err := f.W.Write(hdr[:]); err != nil {
		return err
	}
	left := n
	var serr error
	cerr := src.Control(func(sfd uintptr) {
		werr := dst.Write(func(dfd uintptr) bool {
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
		return f.copyFrame(src, n)
	}
	return serr
}

// copyFrame sends the payload of a frame whose header went, for a socket
// that takes no splice: read from the pipe, written to the connection.
func (f *Writer) copyFrame(src syscall.RawConn, n int) error {
	buf := getChunk(n)
	defer putChunk(buf)
	got := 0
	var rerr error
	cerr := src.Read(func(fd uintptr) bool {
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
	_, err := f.W.Write(buf[:n])
	return err
}
