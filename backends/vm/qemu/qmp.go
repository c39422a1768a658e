//go:build linux

package qemu

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sync"
)

// qmp is a connection to a machine's QEMU Machine Protocol socket: one
// command at a time, events ignored. When the socket ends the machine is
// gone, which is how an adopted machine's end is noticed.
type qmp struct {
	conn net.Conn

	mu      sync.Mutex // one command at a time
	replies chan reply
	gone    chan struct{}
}

type reply struct {
	Return json.RawMessage `json:"return"`
	Error  *struct {
		Class string `json:"class"`
		Desc  string `json:"desc"`
	} `json:"error"`
	Event string `json:"event"`
}

// dialQMP connects and leaves the capabilities negotiation done.
func dialQMP(ctx context.Context, conn net.Conn) (*qmp, error) {
	q := &qmp{conn: conn, replies: make(chan reply), gone: make(chan struct{})}
	br := bufio.NewReader(conn)
	if _, err := br.ReadBytes('\n'); err != nil { // the greeting
		conn.Close()
		return nil, fmt.Errorf("qmp greeting: %w", err)
	}
	go q.read(br)
	if _, err := q.execute(ctx, "qmp_capabilities", nil); err != nil {
		conn.Close()
		return nil, err
	}
	return q, nil
}

func (q *qmp) read(br *bufio.Reader) {
	defer close(q.gone)
	for {
		line, err := br.ReadBytes('\n')
		if err != nil {
			return
		}
		var r reply
		if json.Unmarshal(line, &r) != nil || r.Event != "" {
			continue
		}
		select {
		case q.replies <- r:
		case <-q.gone:
			return
		}
	}
}

// execute runs one command and returns what it returned.
func (q *qmp) execute(ctx context.Context, cmd string, args any) (json.RawMessage, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	msg := map[string]any{"execute": cmd}
	if args != nil {
		msg["arguments"] = args
	}
	data, _ := json.Marshal(msg)
	if _, err := q.conn.Write(append(data, '\n')); err != nil {
		return nil, fmt.Errorf("qmp %s: %w", cmd, err)
	}
	select {
	case r := <-q.replies:
		if r.Error != nil {
			return nil, fmt.Errorf("qmp %s: %s", cmd, r.Error.Desc)
		}
		return r.Return, nil
	case <-q.gone:
		return nil, fmt.Errorf("qmp %s: %w", cmd, errGone)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

var errGone = errors.New("the machine has ended")

func (q *qmp) close() error { return q.conn.Close() }
