package stream

import (
	"bufio"
	"encoding/binary"
	"io"
	"sync"
	"syscall"
)

// Session is the server side of one command: its input as a reader, the
// client's signals, and writers for its output.
type Session struct {
	mu      sync.Mutex
	w       io.Writer
	stdin   *input
	signals chan syscall.Signal
	resizes chan Size
	gone    chan struct{}
	over    bool // the exit status (or a refusal) was sent: nothing follows it
	// offered: the client asked for the command's connection (Handoff)
	// and has not heard yet whether it gets it; the first frame it hears
	// says so
	offered bool
	handed  bool        // the connection went to the client
	reports chan []byte // its last frames, sent back after a handoff
	Stdout  io.Writer
	Stderr  io.Writer
}

// Serve starts reading the client's frames from r; output goes to w.
func Serve(r io.Reader, w io.Writer) *Session {
	in := newInbox()
	s := &Session{w: w, signals: make(chan syscall.Signal, 8), resizes: make(chan Size, 8), gone: make(chan struct{}),
		reports: make(chan []byte, 2)}
	s.Stdout = &Writer{Mu: &s.mu, W: deciding{s}, Typ: Stdout}
	s.Stderr = &Writer{Mu: &s.mu, W: deciding{s}, Typ: Stderr}
	// the first grant (see readFrames) is a window
	s.stdin = &input{s: s, in: in, granted: Window}
	if br, ok := r.(*bufio.Reader); ok && br.Buffered() >= 5 {
		// a client without input says so with its request (see Exec): when
		// that is here already, the input is over before the command starts
		if hdr, _ := br.Peek(5); hdr[0] == StdinClose && binary.BigEndian.Uint32(hdr[1:]) == 0 {
			br.Discard(5)
			in.close(nil)
		}
	}
	go s.readFrames(r, in)
	return s
}

// readFrames reads the client's frames until it hangs up. Input is read
// straight into a slice of its own, which the inbox keeps: no read buffer
// to hold and no copy on the way in.
func (s *Session) readFrames(r io.Reader, in *inbox) {
	defer close(s.gone)
	var ctl [8]byte // every control frame fits
	granted := false
	for {
		typ, n, err := readHeader(r)
		var payload []byte
		switch {
		case err != nil:
		case typ == Stdin && n > 0:
			payload = getChunk(n)
			err = readPayload(r, payload)
		case n <= len(ctl) && typ != Error && typ != ErrorKind:
			payload = ctl[:n]
			err = readPayload(r, payload)
		case (typ == Error || typ == ErrorKind) && n <= maxReport:
			payload = make([]byte, n)
			err = readPayload(r, payload)
		default: // a frame this side does not take: skip it
			_, err = io.CopyN(io.Discard, r, int64(n))
		}
		if err != nil {
			in.close(io.ErrUnexpectedEOF)
			return
		}
		switch typ {
		case Stdin:
			if !granted {
				// the first grant goes out with the first input, not at
				// the command's first read: a command that never reads
				// (sleep) still bounds what the client sends, so the
				// signals behind it are never stuck; a command without
				// input (exec true) costs no frame
				granted = true
				s.grant(Window)
			}
			if len(payload) > 0 {
				in.put(payload)
			}
		case StdinClose:
			in.close(nil)
		case Resize:
			if len(payload) == 4 {
				select {
				case s.resizes <- Size{Rows: uint16(payload[0])<<8 | uint16(payload[1]), Cols: uint16(payload[2])<<8 | uint16(payload[3])}:
				default:
				}
			}
		case Exit, Error, ErrorKind:
			s.report(typ, payload)
		case Signal:
			if len(payload) == 1 {
				select {
				case s.signals <- syscall.Signal(payload[0]):
				default:
				}
			}
		}
	}
}

// input is the command's stdin: it takes the client's input from the
// inbox as the command reads, and grants the client credit for more.
type input struct {
	s              *Session
	in             *inbox
	cur            []byte // what is left of chunk
	chunk          []byte // the input at hand, whole, to go back to the pool
	taken, granted int64
}

func (r *input) Read(p []byte) (int, error) {
	if err := r.fill(); err != nil {
		return 0, err
	}
	n := copy(p, r.cur)
	r.took(n)
	return n, nil
}

// WriteTo hands the client's input to w as it arrived, with no copy in
// between: io.Copy from the session's stdin into a pipe or a connection
// takes this path.
func (r *input) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for {
		if err := r.fill(); err != nil {
			if err == io.EOF {
				err = nil
			}
			return total, err
		}
		n, err := w.Write(r.cur)
		r.took(n)
		total += int64(n)
		if err != nil {
			return total, err
		}
	}
}

// fill makes sure some input is at hand, waiting for the client's next.
func (r *input) fill() error {
	if len(r.cur) > 0 {
		return nil
	}
	r.s.keepOn() // the client sends its input here, not to the command
	chunk, err := r.in.next()
	if chunk == nil {
		if err == nil {
			err = io.EOF
		}
		return err
	}
	r.cur, r.chunk = chunk, chunk
	return nil
}

// took marks n bytes of the input at hand as taken by the command.
func (r *input) took(n int) {
	r.cur = r.cur[n:]
	if len(r.cur) == 0 {
		putChunk(r.chunk)
		r.cur, r.chunk = nil, nil
	}
	r.taken += int64(n)
	// a grant per quarter window, not per read: fewer frames back
	if r.taken+Window-r.granted >= Window/4 {
		r.granted = r.taken + Window
		r.s.grant(r.granted)
	}
}

// Close ends the input: a read waiting for it returns, what arrives later
// is dropped.
func (r *input) Close() error {
	r.in.close(io.ErrClosedPipe)
	return nil
}

// grant tells the client how much input it may have sent in all.
func (s *Session) grant(total int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.over {
		s.keepOnLocked()
		Write(s.w, Credit, creditPayload(total))
	}
}

// NoInput reports, before the command starts, whether the client said
// that it has no input: the command may then start on an empty input (/dev/null) rather
// than a pipe someone must feed.
func (s *Session) NoInput() bool {
	in := s.stdin.in
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.closed && in.err == nil && len(in.chunks) == 0
}

// Stdin is the command's input.
func (s *Session) Stdin() io.Reader { return s.stdin }

// Signals are the signals the client asked to send.
func (s *Session) Signals() <-chan syscall.Signal { return s.signals }

// Resizes are the client's terminal size changes.
func (s *Session) Resizes() <-chan Size { return s.resizes }

// IO is the session as the command sees it.
func (s *Session) IO() IO {
	return IO{Stdin: s.stdin, Stdout: s.Stdout, Stderr: s.Stderr, Signals: s.signals, Resizes: s.resizes}
}

// Gone is closed when the client has gone away (or finished sending).
func (s *Session) Gone() <-chan struct{} { return s.gone }

// Exit sends the exit status; the session is over.
func (s *Session) Exit(code int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stdin.Close()
	s.over = true
	s.keepOnLocked()
	return Write(s.w, Exit, ExitPayload(code))
}

// Fail says the command could not start; the session is over.
func (s *Session) Fail(message string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stdin.Close()
	s.over = true
	s.keepOnLocked()
	return Write(s.w, Error, []byte(message))
}

// Refuse says the command could not start, naming the kind of the
// failure; the session is over.
func (s *Session) Refuse(kind, message string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stdin.Close()
	s.over = true
	s.keepOnLocked()
	if kind != "" {
		if err := Write(s.w, ErrorKind, []byte(kind)); err != nil {
			return err
		}
	}
	return Write(s.w, Error, []byte(message))
}
