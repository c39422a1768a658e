package stream

import (
	"encoding/binary"
	"io"
	"sync"
)

// Window is how much input a client may send ahead of what the command
// has taken. The server's frame reader never waits for a command to read
// its input: a command that never reads (sleep) would otherwise stall the
// reader, and the signals and resizes queued behind the input (Ctrl-C)
// would never arrive. The credit the server grants bounds what it holds.
const Window = 1 << 20

// creditPayload encodes a grant: the total input bytes the client may have
// sent so far.
func creditPayload(total int64) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(total))
	return b[:]
}

// credit is the client's side of the grants.
type credit struct {
	mu    sync.Mutex
	cond  *sync.Cond
	allow int64 // -1 until a grant arrives: a server that grants none (an older one) takes input freely
	sent  int64
	done  bool
}

func newCredit() *credit {
	c := &credit{allow: -1}
	c.cond = sync.NewCond(&c.mu)
	return c
}

// take waits until some of n bytes may be sent and returns how many; 0 when
// the command is over.
func (c *credit) take(n int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	for !c.done && c.allow >= 0 && c.sent >= c.allow {
		c.cond.Wait()
	}
	if c.done {
		return 0
	}
	m := int64(n)
	if c.allow >= 0 {
		m = min(m, c.allow-c.sent)
	}
	c.sent += m
	return int(m)
}

func (c *credit) grant(payload []byte) {
	if len(payload) != 8 {
		return
	}
	total := int64(binary.BigEndian.Uint64(payload))
	c.mu.Lock()
	if total > c.allow {
		c.allow = total
	}
	c.mu.Unlock()
	c.cond.Broadcast()
}

func (c *credit) stop() {
	c.mu.Lock()
	c.done = true
	c.mu.Unlock()
	c.cond.Broadcast()
}

// inbox is the server's side: input received and not yet taken by the
// command, in order.
type inbox struct {
	mu     sync.Mutex
	cond   *sync.Cond
	chunks [][]byte
	size   int
	closed bool
	err    error // why it closed; nil for the client's end of input
}

func newInbox() *inbox {
	in := &inbox{}
	in.cond = sync.NewCond(&in.mu)
	return in
}

// put queues p, which the inbox keeps. Past twice the window (a client that ignores
// grants) it waits, as a reader without credit would.
func (in *inbox) put(p []byte) {
	in.mu.Lock()
	defer in.mu.Unlock()
	for in.size > 2*Window && !in.closed {
		in.cond.Wait()
	}
	if in.closed {
		return // the command is over, or the input ended: drop it
	}
	in.chunks = append(in.chunks, p)
	in.size += len(p)
	in.cond.Broadcast()
}

func (in *inbox) close(err error) {
	in.mu.Lock()
	if !in.closed {
		in.closed, in.err = true, err
	}
	in.mu.Unlock()
	in.cond.Broadcast()
}

// next waits for the next chunk; nil and why once closed and empty.
func (in *inbox) next() ([]byte, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	for len(in.chunks) == 0 && !in.closed {
		in.cond.Wait()
	}
	if len(in.chunks) == 0 || in.err == io.ErrClosedPipe {
		return nil, in.err
	}
	p := in.chunks[0]
	in.chunks = in.chunks[1:]
	in.size -= len(p)
	in.cond.Broadcast()
	return p, nil
}
