//go:build !windows

package wire

import (
	"context"
	"net"
	"os"
)

// listenLocal opens the controller's unix socket at path, mode 0600.
func listenLocal(path string) (net.Listener, error) {
	os.Remove(path)
	l, err := listenUnix(path)
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(path, 0o600); err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}

func dialLocal(ctx context.Context, path string) (net.Conn, error) { return dialUnix(ctx, path) }

// probeCarries: a probe's connection to a unix socket is the controller's
// like any other, and may carry the request that follows it.
const probeCarries = true
