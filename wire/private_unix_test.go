//go:build !windows

package wire

import (
	"os"
	"testing"
)

// checkPrivate: only the user may connect to the socket.
func checkPrivate(t *testing.T, path string) {
	t.Helper()
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode %v, %v; want 0600", fi.Mode().Perm(), err)
	}
}
