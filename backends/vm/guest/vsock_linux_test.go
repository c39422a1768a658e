package guest

import (
	"context"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"sandboxdesk/backends/agent"
	"sandboxdesk/backends/vm/channel"
)

// dialLocalVsock connects to port on this machine's own vsock address
// (the loopback transport), as vz's host connects to the guest.
func dialLocalVsock(t *testing.T, port uint32) *os.File {
	t.Helper()
	fd, err := unix.Socket(unix.AF_VSOCK, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Skipf("no vsock on this machine: %v", err)
	}
	if err := unix.Connect(fd, &unix.SockaddrVM{CID: unix.VMADDR_CID_LOCAL, Port: port}); err != nil {
		unix.Close(fd)
		t.Skipf("no vsock loopback on this machine (the vsock_loopback module): %v", err)
	}
	return os.NewFile(uintptr(fd), "vsock")
}

// TestServeVsock runs the agent on a vsock port as the guest does under
// vz and talks to it as the host does: two channels, one after the other
// (a controller that restarted), each running a command.
func TestServeVsock(t *testing.T) {
	const port = 61234
	l, err := listenVsock(port)
	if err != nil {
		t.Skipf("no vsock on this machine: %v", err)
	}
	l.Close()
	srv := &agent.Server{Env: os.Environ()}
	go serveVsock(srv, port, t.Logf)
	time.Sleep(100 * time.Millisecond) // the listener binds again
	for i := range 2 {
		conn := dialLocalVsock(t, port)
		c, err := channel.NewClient(conn)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		code, err := agent.Call(ctx, c.Dial, agent.Request{Args: []string{"sh", "-c", "exit 7"}})
		cancel()
		if err != nil || code != 7 {
			t.Fatalf("channel %d: exit %d, %v; want 7", i, code, err)
		}
		c.Close()
	}
}
