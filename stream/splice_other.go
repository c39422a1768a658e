//go:build !linux

package stream

import (
	"io"
	"net"
)

// spliced is never opened where there is no splice: every copy is the
// caller's.
type spliced struct{}

func openSplice(io.Reader, io.Writer) (*spliced, bool) { return nil, false }
func (*spliced) pending() (int, error)                 { return 0, nil }
func (*spliced) move(io.Writer, int) error             { return nil }

type splicedOut struct{}

func openSpliceOut(net.Conn, io.Writer) *splicedOut { return nil }
func (*splicedOut) move(int) (int, error)           { return 0, nil }
