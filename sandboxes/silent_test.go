//go:build unix

package sandboxes_test

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sandboxdesk/ipc"
	"sandboxdesk/sandboxes"
	"sandboxdesk/stream"
	"sandboxdesk/wire"
)

// A controller whose socket accepts but which never answers (stopped
// with Ctrl-Z) is named, once, while the command goes on waiting.
func TestSilentControllerIsNamed(t *testing.T) {
	defer sandboxes.SetSilenceNotice(50 * time.Millisecond)()
	root := t.TempDir()
	l, err := net.Listen("unix", wire.SocketPath(root))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() { // accepts, reads, never answers
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	var notices syncBuffer
	c, err := sandboxes.Connect(t.Context(), sandboxes.Controller{Root: root, Exe: filepath.Join(t.TempDir(), "no-such-program"), Notices: &notices})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Second)
	defer cancel()
	var list []ipc.Sandbox
	if err := c.Call(ctx, ipc.ListRequest{}, &list); err == nil {
		t.Fatal("a controller that never answers answered")
	}
	if got := notices.String(); strings.Count(got, "has not answered") != 1 || !strings.Contains(got, root) {
		t.Errorf("notices = %q, want one line naming the root's silent controller", got)
	}
}

// A controller busy with a slow request still answers a status: nothing
// is said.
func TestBusyControllerIsNotNamed(t *testing.T) {
	defer sandboxes.SetSilenceNotice(20 * time.Millisecond)()
	root := t.TempDir()
	l, err := wire.Listen(wire.SocketPath(root))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { (&wire.Server{Handler: slowList{}}).Serve(ctx, l); close(done) }()
	defer func() { cancel(); <-done }()
	var notices syncBuffer
	c, err := sandboxes.Connect(t.Context(), sandboxes.Controller{Root: root, Notices: &notices})
	if err != nil {
		t.Fatal(err)
	}
	var list []ipc.Sandbox
	if err := c.Call(t.Context(), ipc.ListRequest{}, &list); err != nil {
		t.Fatal(err)
	}
	if got := notices.String(); got != "" {
		t.Errorf("notices = %q for a controller that answered its status", got)
	}
}

// slowList answers a list after a while, and a status at once.
type slowList struct{}

func (slowList) Handle(ctx context.Context, req ipc.Request) (any, error) {
	if _, ok := req.(ipc.ListRequest); ok {
		time.Sleep(300 * time.Millisecond)
		return []ipc.Sandbox{}, nil
	}
	return ipc.Status{}, nil
}

func (slowList) Exec(context.Context, ipc.ExecRequest, stream.IO) (int, error) { return 0, nil }
func (slowList) Subscribe() (<-chan ipc.Event, func())                         { return nil, func() {} }
