package ipc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"reflect"
	"time"

	"sandboxdesk/stream"
)

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
	conn, err := dialLocal(ctx, c.Path)
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
	// a success as okLine writes it: the body is decoded where it lies, in
	// one pass, not scanned whole, copied out as a raw message and decoded
	// again (a list of a thousand sandboxes is half a megabyte)
	if body, ok := okBody(line); ok {
		if out == nil {
			return nil
		}
		var syntax *json.SyntaxError
		if err := json.Unmarshal(body, out); !errors.As(err, &syntax) {
			return err
		}
		// not the body alone after all (a field after it): read it whole
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

// okBody is the body of a reply line shaped as okLine makes it.
func okBody(line []byte) ([]byte, bool) {
	const head, tail = `{"ok":true,"body":`, "}"
	line = bytes.TrimRight(line, " \t\r\n")
	if !bytes.HasPrefix(line, []byte(head)) || !bytes.HasSuffix(line, []byte(tail)) || len(line) < len(head)+len(tail)+1 {
		return nil, false
	}
	return line[len(head) : len(line)-len(tail)], true
}

// Exec runs a command in a sandbox and streams it.
func (c *SocketClient) Exec(ctx context.Context, req ExecRequest, cio stream.IO) (int, error) {
	conn, err := dialLocal(ctx, c.Path)
	if err != nil {
		return -1, err
	}
	defer conn.Close()
	line, err := EncodeRequest(req)
	if err != nil {
		return -1, err
	}
	// the request leaves with the end of input when there is none, so the
	// controller knows before it starts the command
	code, err := stream.Exec(ctx, conn, line, cio)
	var se *stream.StartError
	if errors.As(err, &se) {
		if kind := KindByName(se.Kind); kind != nil {
			return -1, &Error{Kind: kind, Message: se.Message}
		}
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
	if _, ok := req.(HelloRequest); ok {
		return l.answer(req, NewHello(), out)
	}
	call := localCall{ctx: ctx, req: req, done: make(chan localResult, 1)}
	select {
	case l.calls <- call:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case res := <-call.done:
		if res.err != nil {
			return res.err
		}
		return l.answer(req, res.body, out)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// answer copies a reply into out, a pointer to its type (or nil).
func (l *Local) answer(req Request, body, out any) error {
	if out == nil {
		return nil
	}
	dst := reflect.ValueOf(out).Elem()
	src := reflect.ValueOf(body)
	if !src.Type().AssignableTo(dst.Type()) {
		return fmt.Errorf("ipc: %s replies %T, not %s", req.Kind(), body, dst.Type())
	}
	dst.Set(src)
	return nil
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
