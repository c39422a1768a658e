package ipc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"time"

	"sandboxdesk/stream"
)

// MaxMessage bounds one request or reply line.
const MaxMessage = 1 << 20

// SocketName is the controller's socket in its root.
const SocketName = "control.sock"

// Handler answers requests. The controller implements it once; the socket
// server and the in-process transport both call it, so no request is
// handled in two places.
type Handler interface {
	Handle(ctx context.Context, req Request) (any, error)
	Exec(ctx context.Context, req ExecRequest, cio stream.IO) (int, error)
	Subscribe() (<-chan Event, func())
}

// Server serves a Handler on a unix socket, one newline-delimited JSON
// request and reply at a time per connection. A bad line gets an error
// reply and the connection goes on; nothing one client sends stops the
// server for the others.
type Server struct {
	Handler Handler
	Log     *slog.Logger
}

// Listen opens the socket at path with mode 0600, replacing a stale one.
// The caller must own the root (hold its lock), so nothing live is there.
func Listen(path string) (net.Listener, error) {
	os.Remove(path)
	l, err := listenUnix(path)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		l.Close()
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	return l, nil
}

// Serve accepts connections until l is closed or ctx ends.
func (s *Server) Serve(ctx context.Context, l net.Listener) error {
	go func() { <-ctx.Done(); l.Close() }()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		conn, err := l.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer conn.Close()
			s.serveConn(ctx, conn)
		}()
	}
}

func (s *Server) serveConn(ctx context.Context, conn net.Conn) {
	br := bufio.NewReaderSize(conn, 64<<10)
	for {
		line, err := readLine(br)
		if errors.Is(err, errTooLong) {
			writeReply(conn, nil, Errorf(ErrInvalid, "message over %d bytes", MaxMessage))
			continue
		}
		if err != nil {
			return
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		req, err := DecodeRequest(line)
		if err != nil {
			writeReply(conn, nil, err)
			continue
		}
		switch r := req.(type) {
		case ExecRequest:
			s.exec(ctx, conn, br, r)
			return
		case SubscribeRequest:
			s.subscribe(ctx, conn)
			return
		default:
			body, err := s.handle(ctx, conn, br, req)
			if werr := writeReply(conn, body, err); werr != nil {
				return
			}
		}
	}
}

// handle answers one request. A client that hangs up while it waits (a
// create queued for a slot, say) cancels the request: its context ends
// when the connection closes.
func (s *Server) handle(ctx context.Context, conn net.Conn, br *bufio.Reader, req Request) (any, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		// Peek waits for the client's next bytes without taking them: an
		// error other than the deadline below means it is gone
		if _, err := br.Peek(1); err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			cancel()
		}
	}()
	body, err := s.Handler.Handle(ctx, req)
	conn.SetReadDeadline(time.Now()) // wake the watcher
	<-watched
	conn.SetReadDeadline(time.Time{})
	return body, err
}

// exec streams one command; a client that goes away mid-command cancels it.
func (s *Server) exec(ctx context.Context, conn net.Conn, br *bufio.Reader, r ExecRequest) {
	sess := stream.Serve(br, conn)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-sess.Gone(): // the client hung up mid-command
			cancel()
		case <-done:
		}
	}()
	code, err := s.Handler.Exec(ctx, r, sess.IO())
	if err != nil {
		sess.Fail(err.Error())
		return
	}
	sess.Exit(code)
}

func (s *Server) subscribe(ctx context.Context, conn net.Conn) {
	events, stop := s.Handler.Subscribe()
	defer stop()
	if writeReply(conn, Empty{}, nil) != nil {
		return
	}
	enc := json.NewEncoder(conn)
	for {
		select {
		case e, ok := <-events:
			if !ok || enc.Encode(e) != nil {
				return
			}
		case <-ctx.Done():
			return
		}
	}
}

var errTooLong = errors.New("line too long")

// readLine reads up to a newline; a line over MaxMessage is skipped to its
// end and reported as errTooLong, so the next line is read cleanly.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > MaxMessage {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
				return nil, err
			}
			return nil, errTooLong
		}
		line = append(line, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return line, err
	}
}

func writeReply(w io.Writer, body any, err error) error {
	var rep reply
	if err != nil {
		rep.Error = &wireError{Kind: KindName(err), Message: err.Error()}
	} else {
		b, merr := json.Marshal(body)
		if merr != nil {
			rep.Error = &wireError{Message: "encode reply: " + merr.Error()}
		} else {
			rep.OK, rep.Body = true, b
		}
	}
	line, _ := json.Marshal(rep)
	_, werr := w.Write(append(line, '\n'))
	return werr
}

// Client talks to a controller: over its socket (SocketClient) or in the
// same process (Local). Call fills out, a pointer to the reply type the
// request names.
type Client interface {
	Call(ctx context.Context, req Request, out any) error
	Exec(ctx context.Context, req ExecRequest, cio stream.IO) (int, error)
	Subscribe(ctx context.Context) (<-chan Event, error)
}

// SocketClient is a Client over the socket in a root.
type SocketClient struct{ Path string }

// SocketPath is the socket of the controller that owns root.
func SocketPath(root string) string { return filepath.Join(root, SocketName) }

func (c *SocketClient) dial(ctx context.Context, req Request) (net.Conn, *bufio.Reader, error) {
	conn, err := dialUnix(ctx, c.Path)
	if err != nil {
		return nil, nil, err
	}
	line, err := EncodeRequest(req)
	if err == nil {
		_, err = conn.Write(line)
	}
	if err != nil {
		conn.Close()
		return nil, nil, err
	}
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	return conn, bufio.NewReaderSize(conn, 64<<10), nil
}

// Call sends one request and reads its reply into out.
func (c *SocketClient) Call(ctx context.Context, req Request, out any) error {
	conn, br, err := c.dial(ctx, req)
	if err != nil {
		return err
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	return readReply(ctx, br, out)
}

func readReply(ctx context.Context, br *bufio.Reader, out any) error {
	line, err := readLine(br)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return Errorf(ErrUnavailable, "the controller closed the connection: %v", err)
	}
	var rep reply
	if err := json.Unmarshal(line, &rep); err != nil {
		return Errorf(ErrUnavailable, "unreadable reply from the controller: %v", err)
	}
	if !rep.OK {
		if rep.Error == nil {
			return Errorf(ErrUnavailable, "the controller failed without saying why")
		}
		kind := KindByName(rep.Error.Kind)
		if kind == nil {
			return errors.New(rep.Error.Message)
		}
		return &Error{Kind: kind, Message: rep.Error.Message}
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(rep.Body, out)
}

// Exec runs a command in a sandbox and streams it.
func (c *SocketClient) Exec(ctx context.Context, req ExecRequest, cio stream.IO) (int, error) {
	conn, br, err := c.dial(ctx, req)
	if err != nil {
		return -1, err
	}
	defer conn.Close()
	conn.SetDeadline(timeZero)
	code, err := stream.Attach(ctx, conn, br, cio)
	var se *stream.StartError
	if errors.As(err, &se) {
		return -1, errors.New(se.Message)
	}
	return code, err
}

// Subscribe streams the controller's events until ctx ends.
func (c *SocketClient) Subscribe(ctx context.Context) (<-chan Event, error) {
	conn, br, err := c.dial(ctx, SubscribeRequest{})
	if err != nil {
		return nil, err
	}
	conn.SetDeadline(timeZero)
	if err := readReply(ctx, br, nil); err != nil {
		conn.Close()
		return nil, err
	}
	out := make(chan Event)
	go func() {
		defer close(out)
		defer conn.Close()
		stop := context.AfterFunc(ctx, func() { conn.Close() })
		defer stop()
		dec := json.NewDecoder(br)
		for {
			var e Event
			if dec.Decode(&e) != nil {
				return
			}
			select {
			case out <- e:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, nil
}

// Local is the in-process Client the desktop UI uses: requests travel over
// a channel to the same Handler the socket serves.
type Local struct {
	calls chan localCall
	h     Handler
}

type localCall struct {
	ctx  context.Context
	req  Request
	done chan localResult
}

type localResult struct {
	body any
	err  error
}

// NewLocal serves h in this process until ctx ends.
func NewLocal(ctx context.Context, h Handler) *Local {
	l := &Local{calls: make(chan localCall), h: h}
	go func() {
		for {
			select {
			case call := <-l.calls:
				go func() {
					body, err := h.Handle(call.ctx, call.req)
					call.done <- localResult{body, err}
				}()
			case <-ctx.Done():
				return
			}
		}
	}()
	return l
}

// Call hands the request to the handler and copies its reply into out.
func (l *Local) Call(ctx context.Context, req Request, out any) error {
	call := localCall{ctx: ctx, req: req, done: make(chan localResult, 1)}
	select {
	case l.calls <- call:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case res := <-call.done:
		if res.err != nil || out == nil {
			return res.err
		}
		dst := reflect.ValueOf(out).Elem()
		src := reflect.ValueOf(res.body)
		if !src.Type().AssignableTo(dst.Type()) {
			return fmt.Errorf("ipc: %s replies %T, not %s", req.Kind(), res.body, dst.Type())
		}
		dst.Set(src)
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Exec runs a command through the handler.
func (l *Local) Exec(ctx context.Context, req ExecRequest, cio stream.IO) (int, error) {
	return l.h.Exec(ctx, req, cio)
}

// Subscribe streams the handler's events until ctx ends.
func (l *Local) Subscribe(ctx context.Context) (<-chan Event, error) {
	events, stop := l.h.Subscribe()
	context.AfterFunc(ctx, stop)
	return events, nil
}

var timeZero time.Time
