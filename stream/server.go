package stream

import (
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
	Stdout  io.Writer
	Stderr  io.Writer
}

// Serve starts reading the client's frames from r; output goes to w.
func Serve(r io.Reader, w io.Writer) *Session {
	in := newInbox()
	s := &Session{w: w, signals: make(chan syscall.Signal, 8), resizes: make(chan Size, 8), gone: make(chan struct{})}
	s.Stdout = &Writer{Mu: &s.mu, W: w, Typ: Stdout}
	s.Stderr = &Writer{Mu: &s.mu, W: w, Typ: Stderr}
	s.stdin = &input{s: s, in: in}
	go func() {
		defer close(s.gone)
		buf := make([]byte, ChunkSize)
		for {
			typ, payload, err := Read(r, buf)
			if err != nil {
				in.close(io.ErrUnexpectedEOF)
				return
			}
			switch typ {
			case Stdin:
				in.put(payload)
			case StdinClose:
				in.close(nil)
			case Resize:
				if len(payload) == 4 {
					select {
					case s.resizes <- Size{Rows: uint16(payload[0])<<8 | uint16(payload[1]), Cols: uint16(payload[2])<<8 | uint16(payload[3])}:
					default:
					}
				}
			case Signal:
				if len(payload) == 1 {
					select {
					case s.signals <- syscall.Signal(payload[0]):
					default:
					}
				}
			}
		}
	}()
	return s
}

// input is the command's stdin: it takes the client's input from the
// inbox as the command reads, and grants the client credit for more.
type input struct {
	s              *Session
	in             *inbox
	cur            []byte
	taken, granted int64
}

func (r *input) Read(p []byte) (int, error) {
	if len(r.cur) == 0 {
		chunk, err := r.in.next()
		if chunk == nil {
			if err == nil {
				err = io.EOF
			}
			return 0, err
		}
		r.cur = chunk
		if r.granted == 0 {
			// the first grant waits for the first input, so a command
			// without any (exec true) costs no frame
			r.granted = Window
			r.s.grant(r.granted)
		}
	}
	n := copy(p, r.cur)
	r.cur = r.cur[n:]
	r.taken += int64(n)
	// a grant per quarter window, not per read: fewer frames back
	if r.taken+Window-r.granted >= Window/4 {
		r.granted = r.taken + Window
		r.s.grant(r.granted)
	}
	return n, nil
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
		Write(s.w, Credit, creditPayload(total))
	}
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
	return Write(s.w, Exit, ExitPayload(code))
}

// Fail says the command could not start; the session is over.
func (s *Session) Fail(message string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stdin.Close()
	s.over = true
	return Write(s.w, Error, []byte(message))
}

// Refuse says the command could not start, naming the kind of the
// failure; the session is over.
func (s *Session) Refuse(kind, message string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stdin.Close()
	s.over = true
	if kind != "" {
		if err := Write(s.w, ErrorKind, []byte(kind)); err != nil {
			return err
		}
	}
	return Write(s.w, Error, []byte(message))
}
