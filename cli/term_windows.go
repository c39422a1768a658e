package cli

import (
	"os"

	"golang.org/x/term"

	"sandboxdesk/stream"
)

// rawTerminal puts the console in raw mode for a remote shell; Windows
// sends no resize signal, so the size is the one at the start.
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
	return func() { term.Restore(fd, state) }, nil, &stream.Size{Rows: uint16(rows), Cols: uint16(cols)}
}
