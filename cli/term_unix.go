//go:build unix

package cli

import (
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/term"

	"sandboxdesk/stream"
)

// watchSize reports the terminal's new size on every SIGWINCH.
func watchSize(fd int) (stop func(), sizes <-chan stream.Size) {
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	out := make(chan stream.Size, 1)
	go func() {
		for range winch {
			if c, r, err := term.GetSize(fd); err == nil {
				select {
				case out <- stream.Size{Rows: uint16(r), Cols: uint16(c)}:
				default:
				}
			}
		}
	}()
	return func() { signal.Stop(winch); close(winch) }, out
}
