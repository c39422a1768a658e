package cli

import (
	"os"

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
	stop, resizes := watchSize(fd)
	return func() {
		stop()
		term.Restore(fd, state)
	}, resizes, &stream.Size{Rows: uint16(rows), Cols: uint16(cols)}
}
