//go:build windows

package wire

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/Microsoft/go-winio"
	"golang.org/x/sys/windows"
)

// listenLocal opens the named pipe that stands for path. Its ACL admits
// only the user running the controller, and it is made as the pipe's
// first instance, so it fails rather than join a pipe someone else made
// under that name first.
func listenLocal(path string) (net.Listener, error) {
	sid, err := currentUser()
	if err != nil {
		return nil, err
	}
	l, err := winio.ListenPipe(PipeName(path), &winio.PipeConfig{
		// a protected DACL with one entry: this user, all access
		SecurityDescriptor: "O:" + sid.String() + "D:P(A;;GA;;;" + sid.String() + ")",
		InputBufferSize:    64 << 10,
		OutputBufferSize:   64 << 10,
	})
	if err != nil || !onWine() {
		return l, err
	}
	// The listener keeps a first instance of the pipe that only reserves
	// its name; Windows keeps clients out of it, Wine lets one in, and
	// that client would wait for an answer forever. Take it ourselves.
	timeout := time.Second
	held, err := winio.DialPipe(PipeName(path), &timeout)
	if err != nil {
		l.Close()
		return nil, fmt.Errorf("hold the pipe's first instance: %w", err)
	}
	return &heldListener{Listener: l, held: held}, nil
}

type heldListener struct {
	net.Listener
	held net.Conn
}

func (l *heldListener) Close() error {
	l.held.Close()
	return l.Listener.Close()
}

// onWine: ntdll exports wine_get_version only under Wine.
func onWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}

// dialLocal connects to the pipe that stands for path and checks that
// this user owns it: a pipe another user made first under the name must
// not hear this user's requests.
func dialLocal(ctx context.Context, path string) (net.Conn, error) {
	conn, err := winio.DialPipeContext(ctx, PipeName(path))
	if err != nil {
		return nil, err
	}
	if err := checkOwner(conn); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

func currentUser() (*windows.SID, error) {
	tu, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return nil, fmt.Errorf("who is this user: %w", err)
	}
	return tu.User.Sid, nil
}

func checkOwner(conn net.Conn) error {
	f, ok := conn.(interface{ Fd() uintptr })
	if !ok {
		return errors.New("named pipe: no handle to check its owner")
	}
	sd, err := windows.GetSecurityInfo(windows.Handle(f.Fd()), windows.SE_KERNEL_OBJECT, windows.OWNER_SECURITY_INFORMATION)
	if err != nil {
		return fmt.Errorf("named pipe: read its owner: %w", err)
	}
	owner, _, err := sd.Owner()
	if err != nil {
		return fmt.Errorf("named pipe: read its owner: %w", err)
	}
	me, err := currentUser()
	if err != nil {
		return err
	}
	if !owner.Equals(me) {
		return fmt.Errorf("the named pipe belongs to %s, not to this user: refusing to talk to it", owner)
	}
	return nil
}

// probeCarries: a probe may land on the pipe instance a listener holds
// only to reserve its name (under Wine, see listenLocal), where nothing
// would ever answer a request; the probe's connection is closed and the
// request dials its own.
const probeCarries = false
