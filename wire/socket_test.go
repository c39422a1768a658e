package wire

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"sandboxdesk/ipc"
	"sandboxdesk/stream"
)

// echoHandler is a small real Handler: list answers with one sandbox per
// call so far, exec copies stdin to stdout and exits with the number of
// its first argument.
type echoHandler struct {
	calls    atomic.Int64
	hanging  chan struct{} // closed when a "hang" request reaches the handler
	canceled chan struct{}
}

func (h *echoHandler) Handle(ctx context.Context, req ipc.Request) (any, error) {
	n := h.calls.Add(1)
	switch r := req.(type) {
	case ipc.ListRequest:
		if r.Prefix == "hang" {
			close(h.hanging)
			<-ctx.Done()
			close(h.canceled)
			return nil, ctx.Err()
		}
		return []ipc.Sandbox{{Name: fmt.Sprintf("call-%d", n), Prefix: r.Prefix}}, nil
	case ipc.InspectRequest:
		return nil, ipc.Errorf(ipc.ErrNotFound, "no sandbox named %s", r.Name)
	}
	return ipc.Empty{}, nil
}

func (h *echoHandler) Exec(ctx context.Context, r ipc.ExecRequest, cio stream.IO) (int, error) {
	if r.Args[0] == "hang" {
		close(h.hanging)
		<-ctx.Done()
		close(h.canceled)
		return -1, ctx.Err()
	}
	if r.Args[0] == "fail" {
		return -1, errors.New("no such sandbox")
	}
	io.Copy(cio.Stdout, cio.Stdin)
	var code int
	fmt.Sscan(r.Args[0], &code)
	return code, nil
}

func (h *echoHandler) Subscribe() (<-chan ipc.Event, func()) {
	ch := make(chan ipc.Event, 1)
	ch <- ipc.Event{Seq: 1, Kind: ipc.EventState, Sandbox: "w", State: ipc.StateRunning}
	return ch, func() {}
}

// serve starts a Server in a folder deep enough that its socket path is
// longer than a unix socket address allows.
func serve(t *testing.T) (*SocketClient, *echoHandler) {
	t.Helper()
	root := filepath.Join(t.TempDir(), strings.Repeat("deep-folder-", 8))
	if err := os.MkdirAll(root, 0o700); err != nil {
		t.Fatal(err)
	}
	path := SocketPath(root)
	if len(path) <= 108 {
		t.Fatalf("socket path only %d bytes; the test wants one over the limit", len(path))
	}
	l, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	h := &echoHandler{hanging: make(chan struct{}), canceled: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { (&Server{Handler: h}).Serve(ctx, l); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	checkPrivate(t, path)
	return &SocketClient{Path: path}, h
}

// TestListening: a dial finds a controller that serves, and none where
// no socket is or where the controller has stopped serving.
func TestListening(t *testing.T) {
	if (&SocketClient{Path: SocketPath(t.TempDir())}).Listening(t.Context()) {
		t.Error("listening on a root with no controller")
	}
	path := SocketPath(t.TempDir())
	l, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { (&Server{Handler: &echoHandler{}}).Serve(ctx, l); close(done) }()
	c := &SocketClient{Path: path}
	if !c.Listening(t.Context()) {
		t.Error("not listening on a served root")
	}
	// the probe's connection, on which nothing came, troubled no one
	var list []ipc.Sandbox
	if err := c.Call(t.Context(), ipc.ListRequest{}, &list); err != nil {
		t.Errorf("call after a probe: %v", err)
	}
	cancel()
	<-done
	if c.Listening(t.Context()) {
		t.Error("listening on a root whose controller stopped serving")
	}
}

func TestCallOverALongPath(t *testing.T) {
	c, _ := serve(t)
	var list []ipc.Sandbox
	if err := c.Call(t.Context(), ipc.ListRequest{Prefix: "ci"}, &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].Prefix != "ci" {
		t.Errorf("list = %+v", list)
	}
	err := c.Call(t.Context(), ipc.InspectRequest{Ref: ipc.Ref{Name: "w"}}, &ipc.Sandbox{})
	if !errors.Is(err, ipc.ErrNotFound) || err.Error() != "no sandbox named w" {
		t.Errorf("error kind lost on the wire: %v", err)
	}
}

func TestExecStreams(t *testing.T) {
	c, _ := serve(t)
	var out strings.Builder
	code, err := c.Exec(t.Context(), ipc.ExecRequest{Ref: ipc.Ref{Name: "w"}, Args: []string{"7"}}, stream.IO{Stdin: strings.NewReader("echoed"), Stdout: &out})
	if err != nil || code != 7 || out.String() != "echoed" {
		t.Errorf("exec: %d, %v, %q", code, err, out.String())
	}
	if _, err := c.Exec(t.Context(), ipc.ExecRequest{Args: []string{"fail"}}, stream.IO{}); err == nil || err.Error() != "no such sandbox" {
		t.Errorf("a failed exec: %v", err)
	}
}

func TestClientGoneMidExecCancels(t *testing.T) {
	c, h := serve(t)
	ctx, cancel := context.WithCancel(t.Context())
	go func() { <-h.hanging; cancel() }()
	c.Exec(ctx, ipc.ExecRequest{Args: []string{"hang"}}, stream.IO{})
	select {
	case <-h.canceled:
	case <-time.After(10 * time.Second):
		t.Fatal("the handler's exec was not cancelled when its client went away")
	}
	var list []ipc.Sandbox
	if err := c.Call(t.Context(), ipc.ListRequest{}, &list); err != nil {
		t.Errorf("the server stopped serving after a client left: %v", err)
	}
}

func TestClientGoneMidCallCancels(t *testing.T) {
	c, h := serve(t)
	ctx, cancel := context.WithCancel(t.Context())
	go func() { <-h.hanging; cancel() }()
	if err := c.Call(ctx, ipc.ListRequest{Prefix: "hang"}, nil); err == nil {
		t.Fatal("a cancelled call succeeded")
	}
	select {
	case <-h.canceled:
	case <-time.After(10 * time.Second):
		t.Fatal("the handler was not cancelled when its client hung up")
	}
}

func TestSequentialCallsOnOneConnection(t *testing.T) {
	c, _ := serve(t)
	conn, err := dialLocal(t.Context(), c.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	br := bufio.NewReader(conn)
	for i := range 3 {
		line, _ := ipc.EncodeRequest(ipc.ListRequest{Prefix: "p" + strconv.Itoa(i)})
		conn.Write(line)
		reply, err := br.ReadString('\n')
		if err != nil || !strings.Contains(reply, `"prefix":"p`+strconv.Itoa(i)+`"`) {
			t.Fatalf("call %d on one connection: %q, %v", i, reply, err)
		}
	}
}

func TestGarbageThenAValidRequest(t *testing.T) {
	c, h := serve(t)
	conn, err := dialLocal(t.Context(), c.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	br := bufio.NewReader(conn)
	garbage := []string{"{", "nonsense", `{"type":"teleport"}`, `{"type":"create","body":"not an object"}`, `[1,2,3]`, `{"type":5}`, "\x00\x01\x02", `{"type":"list","body":{"prefix":7}}`}
	for i := range 1000 {
		fmt.Fprintln(conn, garbage[i%len(garbage)])
		line, err := br.ReadString('\n')
		if err != nil || !strings.Contains(line, `"ok":false`) {
			t.Fatalf("line %d (%q): reply %q, %v", i, garbage[i%len(garbage)], line, err)
		}
	}
	// over 1 MiB on one line
	fmt.Fprintln(conn, `{"type":"list","body":{"prefix":"`+strings.Repeat("x", ipc.MaxMessage)+`"}}`)
	if line, _ := br.ReadString('\n'); !strings.Contains(line, "message over") {
		t.Errorf("oversized line: %q", line)
	}
	// the same connection still answers a real request
	line, _ := ipc.EncodeRequest(ipc.ListRequest{})
	conn.Write(line)
	if reply, _ := br.ReadString('\n'); !strings.Contains(reply, `"ok":true`) {
		t.Errorf("valid request after garbage: %q", reply)
	}
	if h.calls.Load() != 1 {
		t.Errorf("the handler saw %d requests, want only the valid one", h.calls.Load())
	}
	// and so does everyone else
	var list []ipc.Sandbox
	if err := c.Call(t.Context(), ipc.ListRequest{}, &list); err != nil {
		t.Error(err)
	}
}

func TestSubscribe(t *testing.T) {
	c, _ := serve(t)
	events, err := c.Subscribe(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if e := <-events; e.Sandbox != "w" || e.State != ipc.StateRunning || e.Kind != ipc.EventState {
		t.Errorf("event %+v", e)
	}
}

func TestLocalUsesTheSameHandler(t *testing.T) {
	h := &echoHandler{}
	l := NewLocal(t.Context(), h)
	var list []ipc.Sandbox
	if err := l.Call(t.Context(), ipc.ListRequest{Prefix: "ui"}, &list); err != nil || list[0].Prefix != "ui" {
		t.Fatalf("local list: %+v, %v", list, err)
	}
	var wrong ipc.Defaults
	if err := l.Call(t.Context(), ipc.ListRequest{}, &wrong); err == nil {
		t.Error("a reply of the wrong type was accepted")
	}
	if err := l.Call(t.Context(), ipc.InspectRequest{}, &ipc.Sandbox{}); !errors.Is(err, ipc.ErrNotFound) {
		t.Errorf("local error kind: %v", err)
	}
}

// FuzzDecodeRequest: no line panics the decoder, and every failure is
// ErrInvalid.
func FuzzDecodeRequest(f *testing.F) {
	for _, seed := range []string{`{"type":"list"}`, `{"type":"create","body":{"name":"w","memoryMiB":2048}}`, `{`, `{"type":"exec","body":{"args":["sh"]}}`, `null`, `{"type":"remove","body":{"names":[1]}}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		req, err := ipc.DecodeRequest(line)
		if err != nil {
			if !errors.Is(err, ipc.ErrInvalid) {
				t.Fatalf("error %v is not ErrInvalid", err)
			}
			return
		}
		if _, err := ipc.EncodeRequest(req); err != nil {
			t.Fatalf("a decoded %T does not encode: %v", req, err)
		}
	})
}

// countingListener counts the connections it accepts.
type countingListener struct {
	net.Listener
	accepted atomic.Int32
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.accepted.Add(1)
	}
	return c, err
}

// A command probes, then asks: one connection serves both, and the next
// request dials its own.
func TestProbeConnectionCarriesTheRequest(t *testing.T) {
	if !probeCarries {
		t.Skip("a probe of a named pipe closes its connection (see probeCarries)")
	}
	path := SocketPath(t.TempDir())
	inner, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	l := &countingListener{Listener: inner}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { (&Server{Handler: &echoHandler{}}).Serve(ctx, l); close(done) }()
	defer func() { cancel(); <-done }()
	c := &SocketClient{Path: path}
	if !c.Listening(t.Context()) {
		t.Fatal("not listening on a served root")
	}
	var list []ipc.Sandbox
	for want := int32(1); want <= 2; want++ {
		if err := c.Call(t.Context(), ipc.ListRequest{}, &list); err != nil {
			t.Fatalf("call %d: %v", want, err)
		}
		if got := l.accepted.Load(); got != want {
			t.Errorf("after call %d the controller accepted %d connections, want %d", want, got, want)
		}
	}
}
