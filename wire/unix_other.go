//go:build !linux && !windows

package wire

import (
	"context"
	"fmt"
	"net"
)

// maxSocketPath is what fits in a unix socket address on macOS and
// Windows, which have no /proc to shorten it through.
const maxSocketPath = 103

func checkLength(path string) error {
	if len(path) > maxSocketPath {
		return fmt.Errorf("the socket path %s is longer than the %d bytes a unix socket allows; use a shorter --root", path, maxSocketPath)
	}
	return nil
}

func listenUnix(path string) (net.Listener, error) {
	if err := checkLength(path); err != nil {
		return nil, err
	}
	return net.Listen("unix", path)
}

func dialUnix(ctx context.Context, path string) (net.Conn, error) {
	if err := checkLength(path); err != nil {
		return nil, err
	}
	var d net.Dialer
	return d.DialContext(ctx, "unix", path)
}
