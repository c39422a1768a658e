package stream

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
)

// maxReport bounds the error a client sends back after a handoff: the
// agent's own refusal, a line.
const maxReport = 64 << 10

// Offer says that the client asked for the command's connection (see
// Handoff): the first frame it hears tells it whether it got it. Call it
// before the command starts.
func (s *Session) Offer() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.offered = true
}

// keepOn tells a client that was offered the command's connection that it
// does not get it: the command streams here.
func (s *Session) keepOn() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keepOnLocked()
}

func (s *Session) keepOnLocked() {
	if s.offered {
		s.offered = false
		Write(s.w, Handoff, []byte{0})
	}
}

// deciding is the session's connection as its output writers see it: the
// first output tells an offered client that it streams here.
type deciding struct{ s *Session }

// Write is called with s.mu held (the Writers share it).
func (d deciding) Write(p []byte) (int, error) {
	d.s.keepOnLocked()
	return d.s.w.Write(p)
}

// HandOver hands conn, the server's own connection to the command, to the
// client when it asked for it (Offer) and both connections can carry a
// descriptor, and then waits for the outcome the client reads there and
// sends back. Otherwise it tells the client so and returns handed false:
// the command streams through this side.
func (s *Session) HandOver(ctx context.Context, conn net.Conn) (handed bool, code int, err error) {
	s.mu.Lock()
	if !s.offered {
		s.mu.Unlock()
		return false, 0, nil
	}
	s.offered = false
	err = sendConn(s.w, conn)
	if err == errNotPassable {
		err = Write(s.w, Handoff, []byte{0})
		s.mu.Unlock()
		return false, 0, err
	}
	s.handed = err == nil
	s.mu.Unlock()
	if err != nil {
		return true, -1, fmt.Errorf("hand the command's connection over: %w", err)
	}
	// the client holds the connection now; kept in this side's poller,
	// every frame between the client and the command woke this process
	// (some 15 ms of processor per 100 MiB through exec cat)
	h := release(conn)
	defer h.close()
	code, err = s.outcome(ctx)
	if err != nil {
		// the end of the exec here (a stop, the client gone) is the
		// command's: shut down the connection the client holds too
		h.shutdown()
	}
	return true, code, err
}

// report takes a frame of the command's end the client sends back after a
// handoff; any other time it is a frame this side does not take.
func (s *Session) report(typ byte, payload []byte) {
	s.mu.Lock()
	handed := s.handed
	s.mu.Unlock()
	if !handed {
		return
	}
	select {
	case s.reports <- append([]byte{typ}, payload...):
	default: // more than the two an end takes: not listened to
	}
}

// outcome is the command's end as the client reports it after a handoff,
// read as Result reads it from the command's side: the exit status, or
// the refusal to start it. A client that hangs up without one lost the
// command's connection.
func (s *Session) outcome(ctx context.Context) (int, error) {
	kind := ""
	for {
		select {
		case f := <-s.reports:
			switch f[0] {
			case Exit:
				if len(f) != 5 {
					return -1, fmt.Errorf("stream: bad exit frame")
				}
				return int(int32(binary.BigEndian.Uint32(f[1:]))), nil
			case ErrorKind:
				kind = string(f[1:])
			case Error:
				return -1, &StartError{Kind: kind, Message: string(f[1:])}
			}
		case <-s.gone:
			select {
			case f := <-s.reports: // sent just before it hung up
				s.reports <- f
				continue
			default:
			}
			return -1, fmt.Errorf("connection lost: the client ended the handed-over command without its status")
		case <-ctx.Done():
			return -1, ctx.Err()
		}
	}
}

// NotAnsweredError is a server that streamed at once instead of answering
// a handoff: one older than the feature. Read is what was taken of its
// stream, to be read again before the rest.
type NotAnsweredError struct{ Read []byte }

func (e *NotAnsweredError) Error() string {
	return fmt.Sprintf("stream: the server did not answer the handoff (frame %d first)", e.Read[0])
}

// readHandoff reads the Handoff frame from r, which must come first; into
// frame when given (its last byte says whether a connection came).
func readHandoff(r io.Reader, frame []byte) error {
	var hdr [6]byte
	if frame == nil {
		frame = hdr[:]
	}
	if _, err := io.ReadFull(r, frame[:6]); err != nil {
		return fmt.Errorf("connection lost: %w", err)
	}
	if frame[0] != Handoff || binary.BigEndian.Uint32(frame[1:5]) != 1 {
		return &NotAnsweredError{Read: append([]byte(nil), frame[:6]...)}
	}
	if frame[5] > 1 {
		return fmt.Errorf("stream: bad handoff frame")
	}
	return nil
}
