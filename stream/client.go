package stream

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
)

// StartError is a command the far side could not start (not found, not
// executable, no such sandbox). Kind, when the far side named one, says
// why in words a caller maps to an exit status ("invalid", "notFound").
type StartError struct {
	Kind    string
	Message string
}

func (e *StartError) Error() string { return e.Message }

// Attach is the client side, once the request that starts the command has
// been sent on conn: it sends stdin and signals, writes the command's
// output, and returns its exit status. When ctx ends, conn is closed and
// the far side cleans up.
func Attach(ctx context.Context, conn net.Conn, br *bufio.Reader, cio IO) (int, error) {
	stdin, stdout, stderr := cio.Stdin, cio.Stdout, cio.Stderr
	var mu sync.Mutex
	send := func(typ byte, payload []byte) error {
		mu.Lock()
		defer mu.Unlock()
		return Write(conn, typ, payload)
	}
	done := make(chan struct{})
	defer close(done)
	cr := newCredit()
	defer cr.stop()
	go func() {
		if stdin != nil {
			sendInput(stdin, cr, send)
		}
		send(StdinClose, nil)
	}()
	go func() {
		for {
			select {
			case sig := <-cio.Signals:
				send(Signal, []byte{byte(sig)})
			case sz := <-cio.Resizes:
				send(Resize, []byte{byte(sz.Rows >> 8), byte(sz.Rows), byte(sz.Cols >> 8), byte(sz.Cols)})
			case <-ctx.Done():
				cr.stop()
				conn.Close()
				return
			case <-done:
				return
			}
		}
	}()
	if stdout == nil {
		stdout = io.Discard
	}
	if stderr == nil {
		stderr = io.Discard
	}
	if br == nil {
		br = bufio.NewReaderSize(conn, 64<<10)
	}
	return result(ctx, br, stdout, stderr, cr)
}

// sendInput sends stdin as the server's credit allows; the frames of one
// read may wait for it, the signals beside them do not.
func sendInput(stdin io.Reader, cr *credit, send func(byte, []byte) error) {
	// large reads make few frames: each costs a wake-up at every hop
	buf := make([]byte, 256<<10)
	for {
		n, err := stdin.Read(buf)
		for p := buf[:n]; len(p) > 0; {
			m := cr.take(len(p))
			if m == 0 || send(Stdin, p[:m]) != nil {
				return
			}
			p = p[m:]
		}
		if err != nil {
			return
		}
	}
}

// Result reads output frames until the exit frame.
func Result(ctx context.Context, r io.Reader, stdout, stderr io.Writer) (int, error) {
	return result(ctx, r, stdout, stderr, nil)
}

func result(ctx context.Context, r io.Reader, stdout, stderr io.Writer, cr *credit) (int, error) {
	buf := make([]byte, ChunkSize)
	kind := "" // of the Error frame that follows, when the server names it
	for {
		typ, payload, err := Read(r, buf)
		if err != nil {
			if ctx.Err() != nil {
				return -1, ctx.Err()
			}
			return -1, fmt.Errorf("connection lost: %w", err)
		}
		switch typ {
		case Stdout:
			if _, err := stdout.Write(payload); err != nil {
				return -1, err
			}
		case Stderr:
			if _, err := stderr.Write(payload); err != nil {
				return -1, err
			}
		case Exit:
			if len(payload) != 4 {
				return -1, errors.New("stream: bad exit frame")
			}
			return int(int32(binary.BigEndian.Uint32(payload))), nil
		case ErrorKind:
			kind = string(payload)
		case Error:
			return -1, &StartError{Kind: kind, Message: string(payload)}
		}
	}
}
