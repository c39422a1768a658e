//go:build unix

package stream

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

var errNotPassable = errors.New("stream: this connection cannot be handed over")

// sendConn sends the Handoff frame on w with conn's descriptor, when w is
// a Unix socket and conn one too (the server's own connection to the
// command: never anything the far side named).
func sendConn(w io.Writer, conn net.Conn) error {
	ctl, ok := w.(*net.UnixConn)
	uc, ok2 := conn.(*net.UnixConn)
	if !ok || !ok2 {
		return errNotPassable
	}
	rc, err := uc.SyscallConn()
	if err != nil {
		return errNotPassable
	}
	var werr error
	err = rc.Control(func(fd uintptr) {
		_, _, werr = ctl.WriteMsgUnix([]byte{Handoff, 0, 0, 0, 1, 1}, syscall.UnixRights(int(fd)), nil)
	})
	if err != nil {
		return err
	}
	return werr
}

// ReceiveConn reads the server's answer to a client that asked for the
// command's connection: the connection when it was handed over, nil when
// the command streams on ctl as usual. It reads the Handoff frame only.
func ReceiveConn(ctl net.Conn) (net.Conn, error) {
	uc, ok := ctl.(*net.UnixConn)
	if !ok {
		return nil, readHandoff(ctl, nil)
	}
	var frame [6]byte
	oob := make([]byte, syscall.CmsgSpace(4))
	n, oobn, _, _, err := uc.ReadMsgUnix(frame[:], oob)
	if err != nil {
		return nil, err
	}
	var fds []int
	if oobn > 0 {
		msgs, err := syscall.ParseSocketControlMessage(oob[:oobn])
		if err != nil {
			return nil, fmt.Errorf("stream: handoff: %w", err)
		}
		for _, m := range msgs {
			got, err := syscall.ParseUnixRights(&m)
			if err == nil {
				fds = append(fds, got...)
			}
		}
	}
	if err := readHandoff(io.MultiReader(bytes.NewReader(frame[:n]), ctl), frame[:]); err != nil {
		closeAll(fds)
		return nil, err
	}
	if frame[5] == 0 {
		closeAll(fds)
		return nil, nil
	}
	if len(fds) != 1 {
		closeAll(fds)
		return nil, errors.New("stream: the server handed over no connection")
	}
	syscall.CloseOnExec(fds[0])
	f := os.NewFile(uintptr(fds[0]), "command")
	defer f.Close()
	conn, err := net.FileConn(f)
	if err != nil {
		return nil, fmt.Errorf("stream: the handed-over connection: %w", err)
	}
	return conn, nil
}

// released is what a server keeps of a connection it handed over: a bare
// descriptor outside Go's poller, enough to shut the connection down for
// the client that holds it; or, when none could be taken, the connection.
type released struct {
	fd   int
	conn net.Conn
}

// release takes a bare descriptor of conn and closes conn.
func release(conn net.Conn) released {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return released{fd: -1, conn: conn}
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return released{fd: -1, conn: conn}
	}
	fd := -1
	rc.Control(func(s uintptr) {
		if d, err := unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0); err == nil {
			fd = d
		}
	})
	if fd < 0 {
		return released{fd: -1, conn: conn}
	}
	conn.Close()
	return released{fd: fd}
}

func (r released) shutdown() {
	if r.fd >= 0 {
		syscall.Shutdown(r.fd, syscall.SHUT_RDWR)
		return
	}
	shutdown(r.conn)
}

func (r released) close() {
	if r.fd >= 0 {
		syscall.Close(r.fd)
	}
}

func closeAll(fds []int) {
	for _, fd := range fds {
		syscall.Close(fd)
	}
}
