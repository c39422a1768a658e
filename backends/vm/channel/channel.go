// Package channel carries many agent connections over one byte stream
// between a host and its guest: a virtio-serial port under qemu, where
// the guest has no sockets to offer, or one vsock connection under vz.
// Each agent connection (one command) is a yamux stream, so the agent's
// protocol stays what it is over a unix socket.
package channel

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/hashicorp/yamux"
)

// config is shared by both ends. Keep-alives are off: a guest under
// software emulation on a busy host can be silent for seconds without
// being gone, and a dead guest is noticed through the hypervisor instead.
func config() *yamux.Config {
	c := yamux.DefaultConfig()
	c.EnableKeepAlive = false
	c.ConnectionWriteTimeout = 2 * time.Minute
	c.StreamCloseTimeout = 2 * time.Minute
	c.LogOutput = io.Discard
	return c
}

// Listener is the guest's end: every stream the host opens is accepted
// as one connection.
type Listener struct{ s *yamux.Session }

// Listen serves the guest's end over rwc.
func Listen(rwc io.ReadWriteCloser) (*Listener, error) {
	s, err := yamux.Server(rwc, config())
	if err != nil {
		return nil, err
	}
	return &Listener{s}, nil
}

// Accept waits for the host's next connection.
func (l *Listener) Accept() (net.Conn, error) {
	st, err := l.s.AcceptStream()
	if err != nil {
		return nil, err
	}
	return conn{st}, nil
}

func (l *Listener) Close() error   { return l.s.Close() }
func (l *Listener) Addr() net.Addr { return l.s.Addr() }

// Done is closed when the stream under the listener ends (the host went
// away); the guest then listens anew.
func (l *Listener) Done() <-chan struct{} { return l.s.CloseChan() }

// Client is the host's end.
type Client struct{ s *yamux.Session }

// NewClient speaks the host's end over rwc. What the guest sends is
// checked frame by frame before yamux reads it (see guestFrames).
func NewClient(rwc io.ReadWriteCloser) (*Client, error) {
	s, err := yamux.Client(&guestFrames{ReadWriteCloser: rwc}, config())
	if err != nil {
		return nil, err
	}
	return &Client{s}, nil
}

// Dial opens one connection to the guest's agent.
func (c *Client) Dial(ctx context.Context) (net.Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	st, err := c.s.OpenStream()
	if err != nil {
		return nil, err
	}
	return conn{st}, nil
}

// Closed says whether the stream under the client has ended.
func (c *Client) Closed() bool { return c.s.IsClosed() }

// Close ends every connection and the stream under them.
func (c *Client) Close() error { return c.s.Close() }

// conn is a yamux stream that can be half-closed: yamux's Close only
// ends the writing side (a FIN) and the peer's data is still read, which
// is what the agent's CloseWrite after the exit status needs.
type conn struct{ *yamux.Stream }

func (c conn) CloseWrite() error { return c.Stream.Close() }

// yamux's frame header: version, type, flags, stream, length.
const (
	headerSize = 12
	typeData   = 0
	typePing   = 2
	flagSYN    = 1
)

// errGuestFrame ends a channel whose guest sent what our agent never sends.
var errGuestFrame = errors.New("the guest broke the channel's protocol")

// guestFrames is the guest's side of the channel as the host reads it.
// The guest is hostile and may speak yamux itself. Two frames our agent
// never sends cost the host without bound: a ping, which yamux answers
// from a goroutine of its own that waits (up to the write timeout) while
// the guest reads nothing, so a flood of pings is a flood of goroutines;
// and a stream the guest opens, which the host never accepts. Either one
// ends the channel; the next exec connects again.
type guestFrames struct {
	io.ReadWriteCloser
	hdr     [headerSize]byte
	pending []byte // of hdr, not yet handed to yamux
	body    uint32 // payload of the current data frame still to pass
}

func (g *guestFrames) Read(p []byte) (int, error) {
	if len(g.pending) == 0 && g.body == 0 {
		if _, err := io.ReadFull(g.ReadWriteCloser, g.hdr[:]); err != nil {
			return 0, err
		}
		typ, flags := g.hdr[1], binary.BigEndian.Uint16(g.hdr[2:])
		if flags&flagSYN != 0 {
			if typ == typePing {
				return 0, fmt.Errorf("%w: it pinged", errGuestFrame)
			}
			return 0, fmt.Errorf("%w: it opened a stream", errGuestFrame)
		}
		g.pending = g.hdr[:]
		if typ == typeData {
			g.body = binary.BigEndian.Uint32(g.hdr[8:])
		}
	}
	if len(g.pending) > 0 {
		n := copy(p, g.pending)
		g.pending = g.pending[n:]
		return n, nil
	}
	if uint32(len(p)) > g.body {
		p = p[:g.body]
	}
	n, err := g.ReadWriteCloser.Read(p)
	g.body -= uint32(n)
	return n, err
}
