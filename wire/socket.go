package wire

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"sync"
	"time"

	"sandboxdesk/ipc"
	"sandboxdesk/stream"
)

// SocketName is the controller's socket in its root.
const SocketName = "control.sock"

// Server serves an ipc.Handler on a unix socket (a named pipe on Windows), one newline-delimited JSON
// request and reply at a time per connection. A bad line gets an error
// reply and the connection goes on; nothing one client sends stops the
// server for the others.
type Server struct {
	Handler ipc.Handler
	Log     *slog.Logger
}

// Listen opens the socket at path with mode 0600, replacing a stale one
// (on Windows, the named pipe that stands for it, admitting only this
// user). The caller must own the root (hold its lock), so nothing live
// is there.
func Listen(path string) (net.Listener, error) {
	l, err := listenLocal(path)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	return l, nil
}

// Serve accepts connections until l is closed or ctx ends.
func (s *Server) Serve(ctx context.Context, l net.Listener) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	// whatever ends Serve ends every connection too (closeAtEnd), or the
	// wait above would last as long as the most stubborn client
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { <-ctx.Done(); l.Close() }()
	backoff := time.Duration(0)
	for {
		conn, err := l.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			// out of file handles (a client holding thousands of
			// connections, say) passes: refusing new clients for a moment
			// beats a controller that stops answering for good
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			s.log().Warn("accept a connection", "err", err, "retry in", backoff)
			select {
			case <-time.After(backoff):
			case <-ctx.Done():
				return nil
			}
			continue
		}
		backoff = 0
		wg.Add(1)
		served := make(chan struct{})
		go func() {
			defer wg.Done()
			defer conn.Close()
			defer close(served)
			s.serveConn(ctx, conn)
		}()
		go closeAtEnd(ctx, conn, served)
	}
}

// closeAtEnd ends conn once ctx ends, so no client can keep the
// controller from stopping: an idle connection is woken at once (its
// reader's deadline passes), and one that still has a reply in flight
// (the quit that ended ctx, say) or that will not read what is written to
// it is closed after shutdownGrace.
func closeAtEnd(ctx context.Context, conn net.Conn, served <-chan struct{}) {
	select {
	case <-served:
		return
	case <-ctx.Done():
	}
	conn.SetReadDeadline(time.Now())
	select {
	case <-served:
	case <-time.After(shutdownGrace):
		conn.Close()
	}
}

// shutdownGrace bounds how long a connection outlives the end of Serve's
// context.
const shutdownGrace = 5 * time.Second

func (s *Server) serveConn(ctx context.Context, conn net.Conn) {
	br := bufio.NewReaderSize(conn, 64<<10)
	for {
		// handle clears the read deadline closeAtEnd may have set
		if ctx.Err() != nil {
			return
		}
		line, err := readLine(br)
		if errors.Is(err, errTooLong) {
			writeReply(conn, nil, ipc.Errorf(ipc.ErrInvalid, "message over %d bytes", ipc.MaxMessage))
			continue
		}
		if err != nil {
			return
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		req, err := ipc.DecodeRequest(line)
		if err != nil {
			writeReply(conn, nil, err)
			continue
		}
		switch r := req.(type) {
		case ipc.ExecRequest:
			s.exec(ctx, conn, br, r)
			return
		case ipc.SubscribeRequest:
			s.subscribe(ctx, conn, br)
			return
		case ipc.HelloRequest:
			if writeReply(conn, ipc.NewHello(), nil) != nil {
				return
			}
		default:
			body, err := s.handle(ctx, conn, br, req)
			if werr := writeReply(conn, body, err); werr != nil {
				return
			}
		}
	}
}

// handle answers one request. A client that hangs up while it waits (a
// create queued for a slot, say) cancels the request: its context ends
// when the connection closes.
func (s *Server) handle(ctx context.Context, conn net.Conn, br *bufio.Reader, req ipc.Request) (any, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		// Peek waits for the client's next bytes without taking them: an
		// error other than the deadline below means it is gone
		if _, err := br.Peek(1); err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			cancel()
		}
	}()
	body, err := s.Handler.Handle(ctx, req)
	conn.SetReadDeadline(time.Now()) // wake the watcher
	<-watched
	conn.SetReadDeadline(time.Time{})
	return body, err
}

// exec streams one command; a client that goes away mid-command cancels it.
func (s *Server) exec(ctx context.Context, conn net.Conn, br *bufio.Reader, r ipc.ExecRequest) {
	sess := stream.Serve(br, conn)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-sess.Gone(): // the client hung up mid-command
			cancel()
		case <-done:
		}
	}()
	cio := sess.IO()
	if sess.NoInput() {
		cio.Stdin = nil // said on: the sandbox starts the command on an empty input
	}
	if r.Handoff {
		// the client is the root's owner (the socket is its alone); what
		// it gets is the controller's own connection to the agent
		sess.Offer()
		cio.HandOver = sess.HandOver
	}
	code, err := s.Handler.Exec(ctx, r, cio)
	if err != nil {
		// the kind travels, so a bad name exits as bad input at the client
		sess.Refuse(ipc.KindName(err), err.Error())
	} else {
		sess.Exit(code)
	}
	// a client may still be sending input it wrote before it heard the
	// end; closing now would fail its write and, in some clients, lose the
	// last frame unread. It hangs up once it has read it.
	select {
	case <-sess.Gone():
	case <-time.After(lingerAfterExit):
	}
}

// lingerAfterExit bounds the wait for a client to hang up after its
// command's last frame.
const lingerAfterExit = 5 * time.Second

func (s *Server) subscribe(ctx context.Context, conn net.Conn, br *bufio.Reader) {
	events, stop := s.Handler.Subscribe()
	defer stop()
	if writeReply(conn, ipc.Empty{}, nil) != nil {
		return
	}
	// a subscriber sends nothing more; its read ending means it hung up
	// (or Serve is ending), and its subscription goes with it at once,
	// not at the next event, which may be hours away
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		io.Copy(io.Discard, br)
		cancel()
	}()
	enc := json.NewEncoder(conn)
	for {
		select {
		case e, ok := <-events:
			if !ok || enc.Encode(e) != nil {
				return
			}
		case <-ctx.Done():
			return
		}
	}
}

func (s *Server) log() *slog.Logger {
	if s.Log != nil {
		return s.Log
	}
	return slog.Default()
}

var errTooLong = errors.New("line too long")

// readLine reads up to a newline; a line over MaxMessage is skipped to its
// end and reported as errTooLong, so the next line is read cleanly.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > ipc.MaxMessage {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
				return nil, err
			}
			return nil, errTooLong
		}
		line = append(line, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return line, err
	}
}

func writeReply(w io.Writer, body any, err error) error {
	_, werr := w.Write(ipc.EncodeReply(body, err))
	return werr
}
