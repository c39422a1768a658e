package stream

import (
	"errors"
	"io"
	"net"
)

var errNotPassable = errors.New("stream: a named pipe cannot hand a connection over")

// sendConn: nothing is handed over a named pipe.
func sendConn(io.Writer, net.Conn) error { return errNotPassable }

// ReceiveConn reads the server's answer to a client that asked for the
// command's connection; over a named pipe it is always no (nil).
func ReceiveConn(ctl net.Conn) (net.Conn, error) {
	var frame [6]byte
	if err := readHandoff(ctl, frame[:]); err != nil {
		return nil, err
	}
	if frame[5] != 0 {
		return nil, errors.New("stream: the server handed over a connection a named pipe cannot carry")
	}
	return nil, nil
}

// released is what a server keeps of a connection it handed over; over a
// named pipe nothing is ever handed over.
type released struct{ conn net.Conn }

func release(conn net.Conn) released { return released{conn} }
func (r released) shutdown()         { shutdown(r.conn) }
func (r released) close()            {}
