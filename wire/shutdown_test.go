package wire

import (
	"context"
	"net"
	"os"
	"path/filepath"
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

	idle, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	stalled, err := net.Dial("unix", path)
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
