package wire

import (
	"context"
	"fmt"
	"net"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// maxSocketPath is what fits in a unix socket address, with room to spare.
const maxSocketPath = 100

// A root deep enough to make its socket's path longer than a socket
// address allows still works: the path is reached through an open handle
// on its folder (/proc/self/fd/N/control.sock), which is short.
func viaFolder(path string, fn func(short string) error) error {
	if len(path) <= maxSocketPath {
		return fn(path)
	}
	fd, err := unix.Open(filepath.Dir(path), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return fn(fmt.Sprintf("/proc/self/fd/%d/%s", fd, filepath.Base(path)))
}

func listenUnix(path string) (l net.Listener, err error) {
	err = viaFolder(path, func(p string) error {
		l, err = net.Listen("unix", p)
		return err
	})
	return l, err
}

func dialUnix(ctx context.Context, path string) (c net.Conn, err error) {
	err = viaFolder(path, func(p string) error {
		var d net.Dialer
		c, err = d.DialContext(ctx, "unix", p)
		return err
	})
	return c, err
}
