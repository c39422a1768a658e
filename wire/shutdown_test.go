package wire

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"sandboxdesk/ipc"
)

// A client that connects and then neither sends nor reads, or subscribes
// and never reads, must not keep the controller from stopping: quit and
// SIGTERM end Serve, and a hostile or forgotten client would otherwise
// hold it (and so the root's lock) for as long as it likes.
func TestHostileIdleClientsDoNotHoldShutdown(t *testing.T) {
	dir, err := os.MkdirTemp("", "wire")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, SocketName)
	l, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	h := &floodHandler{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- (&Server{Handler: h}).Serve(ctx, l) }()

	idle, err := dialLocal(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	stalled, err := dialLocal(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer stalled.Close()
	if _, err := stalled.Write([]byte(`{"type":"subscribe"}` + "\n")); err != nil {
		t.Fatal(err)
	}
	// a request that is answered proves both connections are being served
	var list []ipc.Sandbox
	if err := (&SocketClient{Path: path}).Call(t.Context(), ipc.ListRequest{}, &list); err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("Serve did not return after its context ended: an idle or non-reading client holds the controller")
	}
}

// floodHandler's subscription sends events without end, so a subscriber
// that never reads fills its socket and blocks the writer.
type floodHandler struct{ echoHandler }

func (h *floodHandler) Subscribe() (<-chan ipc.Event, func()) {
	ch := make(chan ipc.Event)
	stop := make(chan struct{})
	go func() {
		for seq := int64(1); ; seq++ {
			select {
			case ch <- ipc.Event{Seq: seq, Kind: ipc.EventNotice, Message: "a long notice to fill the socket quickly, over and over again"}:
			case <-stop:
				return
			}
		}
	}()
	return ch, func() { close(stop) }
}

// quietHandler's subscription never sends: only the client's hang-up can
// end it.
type quietHandler struct {
	echoHandler
	stopped chan struct{}
}

func (h *quietHandler) Subscribe() (<-chan ipc.Event, func()) {
	return make(chan ipc.Event), func() { close(h.stopped) }
}

// A subscriber that hangs up must be let go at once: waiting for the
// next event to find out kept every connection of a client that
// subscribed thousands of times and left, until the controller ran out
// of file handles.
func TestHostileSubscriberThatLeavesIsReleased(t *testing.T) {
	path := filepath.Join(t.TempDir(), SocketName)
	l, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	h := &quietHandler{stopped: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { (&Server{Handler: h}).Serve(ctx, l); close(done) }()
	t.Cleanup(func() { cancel(); <-done })

	conn, err := dialLocal(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Write([]byte(`{"type":"subscribe"}` + "\n")); err != nil {
		t.Fatal(err)
	}
	reply := make([]byte, 64)
	if _, err := conn.Read(reply); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	select {
	case <-h.stopped:
	case <-time.After(time.Minute):
		t.Fatal("a subscription outlived its client's hang-up")
	}
}

// failingListener fails its first Accepts the way a process out of file
// handles does.
type failingListener struct {
	net.Listener
	fails int
}

func (l *failingListener) Accept() (net.Conn, error) {
	if l.fails > 0 {
		l.fails--
		return nil, &net.OpError{Op: "accept", Net: "unix", Err: syscall.EMFILE}
	}
	return l.Listener.Accept()
}

// Running out of file handles (a client holding thousands of
// connections) must pass: Serve once returned, and the controller then
// held its root without answering anyone.
func TestHostileAcceptFailureIsSurvived(t *testing.T) {
	path := filepath.Join(t.TempDir(), SocketName)
	l, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		(&Server{Handler: &echoHandler{}}).Serve(ctx, &failingListener{Listener: l, fails: 3})
		close(done)
	}()
	t.Cleanup(func() { cancel(); <-done })
	var list []ipc.Sandbox
	if err := (&SocketClient{Path: path}).Call(t.Context(), ipc.ListRequest{}, &list); err != nil {
		t.Fatalf("after failed accepts: %v", err)
	}
}
