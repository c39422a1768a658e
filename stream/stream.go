// Package stream carries one command's standard streams, signals and exit
// status over a connection, as frames: one byte of type, four bytes of
// big-endian length, the payload. The CLI speaks it to the controller for
// `exec`, and the controller to the agent inside a sandbox, so a command's
// bytes cross both hops unchanged.
package stream

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"syscall"
)

// Frame types.
const (
	Stdin      byte = 0 // client -> server
	Stdout     byte = 1 // server -> client
	Stderr     byte = 2
	Exit       byte = 3 // server -> client; payload: 4-byte exit status
	StdinClose byte = 4 // client -> server: no more input
	Signal     byte = 5 // client -> server: payload 1 byte signal number
	Error      byte = 6 // server -> client: the command could not start
	Resize     byte = 7 // client -> server: payload rows, cols (2 bytes each)
	// ErrorKind: server -> client, just before an Error frame: the kind of
	// that error, by name ("invalid", "notFound", ...), so a bad name or
	// folder exits as bad input. A client that does not know it reads the
	// Error frame as before.
	ErrorKind byte = 8
	// Credit: server -> client, payload 8 bytes: the total input the
	// client may have sent so far (see Window). A client that never hears
	// one sends freely, as to an older server.
	Credit byte = 9
	// Handoff: server -> client, first of all, when the client asked for
	// it (ipc's exec "handoff"); payload 1 byte. 1: the server's own
	// connection to the command (the agent's) travels with this frame as
	// a descriptor (SCM_RIGHTS), the client streams over it directly and
	// then sends back the command's last frames (Exit, or ErrorKind and
	// Error) on this connection, which ends as before. 0: nothing was
	// handed over, the command streams on this connection as usual.
	Handoff byte = 10
)

// Size is a terminal's size.
type Size struct{ Rows, Cols uint16 }

// IO is a command's streams as one side of a connection sees them.
type IO struct {
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer
	Signals <-chan syscall.Signal
	Resizes <-chan Size // a terminal's new size (exec on a pty)
	// HandOver, when set, is offered the connection to the command once
	// its request is sent: when it takes it (handed), the command's
	// streams go past this side and HandOver returns its outcome.
	HandOver func(ctx context.Context, conn net.Conn) (handed bool, code int, err error)
}

// MaxFrame bounds one frame's payload; a larger length is a broken peer.
const MaxFrame = 1 << 20

// ChunkSize is the most a Writer reads at once when it copies from a
// reader (ReadFrom): the size of the frames of a command's output and of
// the stdin sent to it. Readers of frames keep a buffer this size, so a
// frame costs them no allocation.
const ChunkSize = 256 << 10

// Write sends one frame, in one write (writev on a socket): the peer
// never wakes for a header alone.
func Write(w io.Writer, typ byte, payload []byte) error {
	var hdr [5]byte
	hdr[0] = typ
	binary.BigEndian.PutUint32(hdr[1:], uint32(len(payload)))
	bufs := net.Buffers{hdr[:], payload}
	_, err := bufs.WriteTo(w)
	return err
}

// Read reads one frame into buf, which is grown (to at least twice its
// size, so a run of growing frames costs few allocations) when too small:
// a caller keeps the returned payload's backing array for the next frame.
func Read(r io.Reader, buf []byte) (byte, []byte, error) {
	typ, n, err := readHeader(r)
	if err != nil {
		return 0, nil, err
	}
	if n > cap(buf) {
		buf = make([]byte, n, max(n, min(2*cap(buf), MaxFrame)))
	}
	buf = buf[:n]
	if err := readPayload(r, buf); err != nil {
		return 0, nil, err
	}
	return typ, buf, nil
}

// readHeader reads a frame's type and payload length.
func readHeader(r io.Reader) (byte, int, error) {
	var hdr [5]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return 0, 0, err
	}
	n := binary.BigEndian.Uint32(hdr[1:])
	if n > MaxFrame {
		return 0, 0, fmt.Errorf("stream: frame of %d bytes is over the %d limit", n, MaxFrame)
	}
	return hdr[0], int(n), nil
}

func readPayload(r io.Reader, p []byte) error {
	if _, err := io.ReadFull(r, p); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	return nil
}

// chunks holds ChunkSize buffers between uses: a command's output is read
// into one, so an exec that prints little (true) costs no large
// allocation, and no garbage collection to take it back.
var chunks = sync.Pool{New: func() any { b := make([]byte, ChunkSize); return &b }}

// getChunk is a buffer of n bytes, from the pool when it fits one: input
// passes through a session in frames of up to ChunkSize, each read into
// one of these and given back once the command has taken it.
func getChunk(n int) []byte {
	if n > ChunkSize {
		return make([]byte, n)
	}
	return (*chunks.Get().(*[]byte))[:n]
}

// putChunk gives back a buffer of getChunk.
func putChunk(b []byte) {
	if cap(b) == ChunkSize {
		b = b[:ChunkSize]
		chunks.Put(&b)
	}
}

// Writer turns writes into frames of one type. Writers sharing a
// connection share one mutex, so their frames never interleave.
type Writer struct {
	Mu  *sync.Mutex
	W   io.Writer
	Typ byte
}

func (f *Writer) Write(p []byte) (int, error) {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	total := len(p)
	for len(p) > 0 {
		n := min(len(p), MaxFrame)
		if err := Write(f.W, f.Typ, p[:n]); err != nil {
			return 0, err
		}
		p = p[n:]
	}
	return total, nil
}

// ReadFrom copies r into frames of up to ChunkSize, the lock held for
// each frame only: io.Copy into a Writer (a command's output, stdin)
// sends large frames instead of io.Copy's 32 KiB ones.
func (f *Writer) ReadFrom(r io.Reader) (int64, error) {
	if n, handled, err := f.spliceFrom(r); handled {
		return n, err
	}
	bp := chunks.Get().(*[]byte)
	defer chunks.Put(bp)
	buf := *bp
	var total int64
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if _, werr := f.Write(buf[:n]); werr != nil {
				return total, werr
			}
			total += int64(n)
		}
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}

// ExitPayload encodes an exit status.
func ExitPayload(code int) []byte {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], uint32(int32(code)))
	return b[:]
}
