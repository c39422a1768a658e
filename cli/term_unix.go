//go:build unix

package cli

import (
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/term"

	"sandboxdesk/stream"
)

// rawTerminal puts the CLI's terminal in raw mode for a remote shell and
// reports its size and every change of it. Without a terminal (a pipe) it
// does nothing and the shell runs without one.
func (e *env) rawTerminal() (restore func(), resizes <-chan stream.Size, size *stream.Size) {
	in, ok := e.In.(*os.File)
	if !ok || !term.IsTerminal(int(in.Fd())) {
		return func() {}, nil, nil
	}
	fd := int(in.Fd())
	cols, rows, err := term.GetSize(fd)
	if err != nil {
		return func() {}, nil, nil
	}
	state, err := term.MakeRaw(fd)
	if err != nil {
		return func() {}, nil, nil
	}
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
	return func() {
		signal.Stop(winch)
		close(winch)
		term.Restore(fd, state)
	}, out, &stream.Size{Rows: uint16(rows), Cols: uint16(cols)}
}
