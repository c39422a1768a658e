package wire

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"sync"
	"time"

	"sandboxdesk/ipc"
	"sandboxdesk/stream"
)

// SocketClient is an ipc.Client over the socket in a root (on Windows,
// the named pipe that stands for it). Use it by pointer.
type SocketClient struct {
	Path string

	mu sync.Mutex
	// spare is the connection Listening made, kept for the request that
	// follows it, so a command's probe and its request cost one dial
	spare   net.Conn
	spareAt time.Time
}

// spareFor bounds how long Listening's connection waits for a request: a
// client that asks nothing for so long dials afresh.
const spareFor = 10 * time.Second

// SocketPath is the socket of the controller that owns root.
func SocketPath(root string) string { return filepath.Join(root, SocketName) }

// Listening reports whether a controller accepts connections on the
// socket. It sends nothing: for a client about to send its request, the
// dial alone says as much as a round trip, for a fraction of its cost. A
// controller that is stopping has closed its socket already.
// The connection is kept for the next request.
func (c *SocketClient) Listening(ctx context.Context) bool {
	conn, err := dialLocal(ctx, c.Path)
	if err != nil {
		return false
	}
	if !probeCarries {
		conn.Close()
		return true
	}
	c.mu.Lock()
	old := c.spare
	c.spare, c.spareAt = conn, time.Now()
	c.mu.Unlock()
	if old != nil {
		old.Close()
	}
	return true
}

// connect is a new connection to the controller: the one Listening kept,
// while it is fresh, else a dial.
func (c *SocketClient) connect(ctx context.Context) (net.Conn, error) {
	c.mu.Lock()
	conn, at := c.spare, c.spareAt
	c.spare = nil
	c.mu.Unlock()
	if conn != nil {
		if time.Since(at) < spareFor {
			return conn, nil
		}
		conn.Close()
	}
	return dialLocal(ctx, c.Path)
}

func (c *SocketClient) dial(ctx context.Context, req ipc.Request) (net.Conn, *bufio.Reader, error) {
	conn, err := c.connect(ctx)
	if err != nil {
		return nil, nil, err
	}
	line, err := ipc.EncodeRequest(req)
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
func (c *SocketClient) Call(ctx context.Context, req ipc.Request, out any) error {
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
		return ipc.Errorf(ipc.ErrUnavailable, "the controller closed the connection: %v", err)
	}
	return ipc.DecodeReply(line, out)
}

// Exec runs a command in a sandbox and streams it.
func (c *SocketClient) Exec(ctx context.Context, req ipc.ExecRequest, cio stream.IO) (int, error) {
	conn, err := c.connect(ctx)
	if err != nil {
		return -1, err
	}
	defer conn.Close()
	req.Handoff = c.handoff(ctx, cio)
	line, err := ipc.EncodeRequest(req)
	if err != nil {
		return -1, err
	}
	var code int
	if req.Handoff {
		code, err = execHandedOver(ctx, conn, line, cio)
	} else {
		// the request leaves with the end of input when there is none, so the
		// controller knows before it starts the command
		code, err = stream.Exec(ctx, conn, line, cio)
	}
	var se *stream.StartError
	if errors.As(err, &se) {
		if kind := ipc.KindByName(se.Kind); kind != nil {
			return -1, &ipc.Error{Kind: kind, Message: se.Message}
		}
		return -1, errors.New(se.Message)
	}
	return code, err
}

// Subscribe streams the controller's events until ctx ends.
func (c *SocketClient) Subscribe(ctx context.Context) (<-chan ipc.Event, error) {
	conn, br, err := c.dial(ctx, ipc.SubscribeRequest{})
	if err != nil {
		return nil, err
	}
	conn.SetDeadline(timeZero)
	if err := readReply(ctx, br, nil); err != nil {
		conn.Close()
		return nil, err
	}
	out := make(chan ipc.Event)
	go func() {
		defer close(out)
		defer conn.Close()
		stop := context.AfterFunc(ctx, func() { conn.Close() })
		defer stop()
		dec := json.NewDecoder(br)
		for {
			var e ipc.Event
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

// Local is the in-process ipc.Client the desktop UI uses: requests travel over
// a channel to the same Handler the socket serves.
type Local struct {
	calls chan localCall
	h     ipc.Handler
}

type localCall struct {
	ctx  context.Context
	req  ipc.Request
	done chan localResult
}

type localResult struct {
	body any
	err  error
}

// NewLocal serves h in this process until ctx ends.
func NewLocal(ctx context.Context, h ipc.Handler) *Local {
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
func (l *Local) Call(ctx context.Context, req ipc.Request, out any) error {
	if _, ok := req.(ipc.HelloRequest); ok {
		return l.answer(req, ipc.NewHello(), out)
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
func (l *Local) answer(req ipc.Request, body, out any) error {
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
func (l *Local) Exec(ctx context.Context, req ipc.ExecRequest, cio stream.IO) (int, error) {
	return l.h.Exec(ctx, req, cio)
}

// Subscribe streams the handler's events until ctx ends.
func (l *Local) Subscribe(ctx context.Context) (<-chan ipc.Event, error) {
	events, stop := l.h.Subscribe()
	context.AfterFunc(ctx, stop)
	return events, nil
}

var timeZero time.Time

// handoff says whether to ask for the command's own connection: on a Unix
// socket, from a controller that offers it. One without input never waits
// on the answer, so only an exec with input asks the controller first (an
// older one would stream as before while the client waited to hear).
func (c *SocketClient) handoff(ctx context.Context, cio stream.IO) bool {
	if runtime.GOOS == "windows" {
		return false
	}
	if cio.Stdin == nil {
		return true
	}
	var h ipc.Hello
	if c.Call(ctx, ipc.HelloRequest{Client: "go"}, &h) != nil {
		return false
	}
	return slices.Contains(h.Features, "exec.handoff")
}

// execHandedOver runs an exec that asked for the command's connection:
// when the controller hands it over, the command streams on it, past the
// controller, whose records then hear the end from this side; otherwise
// it streams on conn as usual.
func execHandedOver(ctx context.Context, conn net.Conn, line []byte, cio stream.IO) (int, error) {
	if cio.Stdin == nil {
		line = append(line, stream.StdinClose, 0, 0, 0, 0)
	}
	if _, err := conn.Write(line); err != nil {
		return -1, err
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	agentConn, err := stream.ReceiveConn(conn)
	var older *stream.NotAnsweredError
	if errors.As(err, &older) && cio.Stdin == nil {
		// a controller from before the handoff streams as it always did
		// (a client with input asked it first, see handoff)
		return stream.Attach(ctx, conn, bufio.NewReader(io.MultiReader(bytes.NewReader(older.Read), conn)), cio)
	}
	if err != nil {
		if ctx.Err() != nil {
			return -1, ctx.Err()
		}
		return -1, err
	}
	if agentConn == nil {
		return stream.Attach(ctx, conn, bufio.NewReader(conn), cio)
	}
	code, err := stream.Attach(ctx, agentConn, nil, cio)
	agentConn.Close()
	// the command's end goes back as its agent said it, for the
	// controller's records; a lost connection as a hang-up
	var se *stream.StartError
	switch {
	case errors.As(err, &se):
		if se.Kind != "" {
			stream.Write(conn, stream.ErrorKind, []byte(se.Kind))
		}
		stream.Write(conn, stream.Error, []byte(se.Message))
	case err == nil:
		stream.Write(conn, stream.Exit, stream.ExitPayload(code))
	default:
		if cw, ok := conn.(interface{ CloseWrite() error }); ok {
			cw.CloseWrite()
		}
	}
	// the controller's answer, as without a handoff: what it makes of
	// that end (a command it could not start is 127 and a line on stderr)
	return stream.Result(ctx, bufio.NewReader(conn), cio.Stdout, cio.Stderr)
}
