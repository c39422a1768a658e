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
	return attach(ctx, conn, br, nil, cio)
}

// Exec sends request, the line that starts a command, on conn and
// attaches to the command. Without input (cio.Stdin nil) the end of input
// leaves with the request, in one write: the far side has it before it
// starts the command, which then needs no input pipe.
func Exec(ctx context.Context, conn net.Conn, request []byte, cio IO) (int, error) {
	return attach(ctx, conn, nil, request, cio)
}

func attach(ctx context.Context, conn net.Conn, br *bufio.Reader, request []byte, cio IO) (int, error) {
	stdin, stdout, stderr := cio.Stdin, cio.Stdout, cio.Stderr
	var mu sync.Mutex
	send := func(typ byte, payload []byte) error {
		mu.Lock()
		defer mu.Unlock()
		return Write(conn, typ, payload)
	}
	cr := newCredit()
	defer cr.stop()
	// an ending ctx closes conn; no goroutine waits for it. It shuts the
	// connection down first: when it was handed over (cio.HandOver), the
	// client holding it hears the end too
	defer context.AfterFunc(ctx, func() {
		cr.stop()
		shutdown(conn)
		conn.Close()
	})()
	if stdin == nil {
		// no input: said at once, with the request when there is one
		if _, err := conn.Write(append(request, StdinClose, 0, 0, 0, 0)); err != nil && request != nil {
			return -1, err
		}
	} else {
		if request != nil {
			if _, err := conn.Write(request); err != nil {
				return -1, err
			}
		}
	}
	if cio.HandOver != nil {
		if handed, code, err := cio.HandOver(ctx, conn); handed {
			return code, err
		}
	}
	if stdin != nil {
		go func() {
			io.Copy(&creditWriter{cr: cr, send: send, mu: &mu, conn: conn}, stdin)
			send(StdinClose, nil)
		}()
	}
	if cio.Signals != nil || cio.Resizes != nil {
		done := make(chan struct{})
		defer close(done)
		go relay(cio, send, done)
	}
	if stdout == nil {
		stdout = io.Discard
	}
	if stderr == nil {
		stderr = io.Discard
	}
	if br == nil {
		br = readers.Get().(*bufio.Reader)
		br.Reset(conn)
		defer func() { br.Reset(nil); readers.Put(br) }()
	}
	return result(ctx, br, stdout, stderr, cr)
}

// shutdown ends a connection for every holder of its descriptor, not
// only this one.
func shutdown(conn net.Conn) {
	if c, ok := conn.(interface{ CloseWrite() error }); ok {
		c.CloseWrite()
	}
	if c, ok := conn.(interface{ CloseRead() error }); ok {
		c.CloseRead()
	}
}

// readers are the buffered readers of connections Attach was handed bare.
var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 64<<10) }}

// relay sends the client's signals and terminal sizes until done.
func relay(cio IO, send func(byte, []byte) error, done <-chan struct{}) {
	for {
		select {
		case sig := <-cio.Signals:
			send(Signal, []byte{byte(sig)})
		case sz := <-cio.Resizes:
			send(Resize, []byte{byte(sz.Rows >> 8), byte(sz.Rows), byte(sz.Cols >> 8), byte(sz.Cols)})
		case <-done:
			return
		}
	}
}

// creditWriter sends stdin as Stdin frames, each within the credit the
// server granted; the frames of one read may wait for it, the signals
// beside them do not. Input that is itself a session's (the controller
// passing a client's input on to an agent) goes through as it arrived,
// with no copy; input from a pipe goes by splice.
type creditWriter struct {
	cr   *credit
	send func(byte, []byte) error
	mu   *sync.Mutex // send's: held for a spliced frame
	conn io.Writer
}

func (w *creditWriter) Write(p []byte) (int, error) {
	total := len(p)
	for len(p) > 0 {
		m := w.cr.take(min(len(p), MaxFrame))
		if m == 0 {
			return total - len(p), io.ErrClosedPipe
		}
		if err := w.send(Stdin, p[:m]); err != nil {
			return total - len(p), err
		}
		p = p[m:]
	}
	return total, nil
}

// ReadFrom reads large: each frame costs a wake-up at every hop.
func (w *creditWriter) ReadFrom(r io.Reader) (int64, error) {
	if sp, ok := openSplice(r, w.conn); ok {
		return w.splice(sp)
	}
	bp := chunks.Get().(*[]byte)
	defer chunks.Put(bp)
	var total int64
	for {
		n, err := r.Read(*bp)
		if n > 0 {
			if _, werr := w.Write((*bp)[:n]); werr != nil {
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

// Result reads output frames until the exit frame.
func Result(ctx context.Context, r io.Reader, stdout, stderr io.Writer) (int, error) {
	return result(ctx, r, stdout, stderr, nil)
}

func result(ctx context.Context, r io.Reader, stdout, stderr io.Writer, cr *credit) (int, error) {
	var buf []byte // grown to the frames that come
	kind := ""     // of the Error frame that follows, when the server names it
	for {
		typ, payload, err := Read(r, buf)
		if cap(payload) > cap(buf) {
			buf = payload[:cap(payload)]
		}
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
		case Credit:
			if cr != nil {
				cr.grant(payload)
			}
		case ErrorKind:
			kind = string(payload)
		case Error:
			return -1, &StartError{Kind: kind, Message: string(payload)}
		}
	}
}

// splice sends the pipe's input as frames of what it holds, within the
// credit, their payloads spliced.
func (w *creditWriter) splice(sp *spliced) (int64, error) {
	var total int64
	for {
		n, err := sp.pending()
		if err != nil || n == 0 {
			return total, err
		}
		m := w.cr.take(n) // at most n: the pipe holds the m to move
		if m == 0 {
			return total, io.ErrClosedPipe
		}
		w.mu.Lock()
		err = writeHeader(w.conn, Stdin, m)
		if err == nil {
			err = sp.move(w.conn, m)
		}
		w.mu.Unlock()
		if err != nil {
			return total, err
		}
		total += int64(m)
	}
}
