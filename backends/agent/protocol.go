// Package agent runs commands inside a sandbox on behalf of the
// controller. The agent is the sandbox's first process (the bubblewrap
// backend starts it as the sandbox's command; a VM would start it at
// boot); the controller connects to its socket once per command.
//
// Running every command as a child of one agent, rather than entering the
// sandbox's namespaces from outside, gives each command exactly the
// sandbox's namespaces, user, cgroup and dropped capabilities, and lets a
// background process started by one command live on for the next.
//
// The protocol, per connection: the client sends one JSON line (a
// Request), then both sides exchange frames: one byte of type, four bytes
// of big-endian length, the payload. The agent answers with stdout and
// stderr frames and finally one exit frame.
package agent

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
)

// Command is the first argument that turns the sandboxdesk binary (or a
// test binary) into the agent: "sandboxdesk __sandboxdesk_agent SOCKET".
const Command = "__sandboxdesk_agent"

// Request starts a command, or asks for an operation on the sandbox.
type Request struct {
	// Op is "exec" (the default), "terminate" (ask every process to end,
	// wait up to GraceMs, then report) or "ping".
	Op      string   `json:"op,omitempty"`
	Args    []string `json:"args,omitempty"`
	Env     []string `json:"env,omitempty"`
	Dir     string   `json:"dir,omitempty"`
	GraceMs int64    `json:"graceMs,omitempty"`
}

// Frame types.
const (
	frameStdin      byte = 0 // client -> agent
	frameStdout     byte = 1 // agent -> client
	frameStderr     byte = 2
	frameExit       byte = 3 // payload: 4-byte exit status
	frameStdinClose byte = 4 // client -> agent: no more input
	frameSignal     byte = 5 // client -> agent: payload 1 byte signal number
	frameError      byte = 6 // agent -> client: the command could not start
)

// maxFrame bounds one frame's payload; a larger length is a broken peer.
const maxFrame = 1 << 20

func writeFrame(w io.Writer, typ byte, payload []byte) error {
	var hdr [5]byte
	hdr[0] = typ
	binary.BigEndian.PutUint32(hdr[1:], uint32(len(payload)))
	if _, err := w.Write(hdr[:]); err != nil {
		return err
	}
	_, err := w.Write(payload)
	return err
}

func readFrame(r io.Reader, buf []byte) (byte, []byte, error) {
	var hdr [5]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(hdr[1:])
	if n > maxFrame {
		return 0, nil, fmt.Errorf("agent: frame of %d bytes is over the %d limit", n, maxFrame)
	}
	if int(n) > cap(buf) {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := io.ReadFull(r, buf); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return 0, nil, err
	}
	return hdr[0], buf, nil
}

// frameWriter turns writes into frames of one type. Writes from several
// goroutines (stdout and stderr) are serialized by mu.
type frameWriter struct {
	mu  *sync.Mutex
	w   io.Writer
	typ byte
}

func (f *frameWriter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	total := len(p)
	for len(p) > 0 {
		n := min(len(p), maxFrame)
		if err := writeFrame(f.w, f.typ, p[:n]); err != nil {
			return 0, err
		}
		p = p[n:]
	}
	return total, nil
}
