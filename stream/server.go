package stream

import (
	"encoding/json"
	"io"
	"sync"
	"syscall"
)

// Session is the server side of one command: its input as a reader, the
// client's signals, and writers for its output.
type Session struct {
	mu      sync.Mutex
	w       io.Writer
	stdin   *io.PipeReader
	signals chan syscall.Signal
	resizes chan Size
	gone    chan struct{}
	over    bool // the exit status (or a refusal) was sent: nothing follows it
	Stdout  io.Writer
	Stderr  io.Writer
}

// Serve starts reading the client's frames from r; output goes to w.
func Serve(r io.Reader, w io.Writer) *Session {
	pr, pw := io.Pipe()
	s := &Session{w: w, stdin: pr, signals: make(chan syscall.Signal, 8), resizes: make(chan Size, 8), gone: make(chan struct{})}
	s.Stdout = &Writer{Mu: &s.mu, W: w, Typ: Stdout}
	s.Stderr = &Writer{Mu: &s.mu, W: w, Typ: Stderr}
	in := newInbox()
	go s.feed(in, pw)
	go func() {
		defer close(s.gone)
		buf := make([]byte, 64<<10)
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

// feed hands the client's input to the command as it reads it, and grants
// the client credit for more as it goes.
func (s *Session) feed(in *inbox, pw *io.PipeWriter) {
	var taken int64
	for first := true; ; first = false {
		p, err := in.next()
		if p == nil {
			pw.CloseWithError(err)
			return
		}
		if first {
			// the first grant waits for the first input, so a command
			// without any (exec true) costs no frame
			s.grant(Window)
		}
		// an error: the command stopped reading; keep draining, and keep
		// granting, so the client is never stuck before the exit status
		pw.Write(p)
		taken += int64(len(p))
		s.grant(taken + Window)
	}
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

// Refuse says the request was refused, naming the kind of refusal; the
// session is over.
func (s *Session) Refuse(kind, message string) error {
	payload, err := json.Marshal(StartError{Kind: kind, Message: message})
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stdin.Close()
	s.over = true
	return Write(s.w, Refused, payload)
}
