//go:build unix

package wire

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"sandboxdesk/ipc"
	"sandboxdesk/stream"
)

// agentHandler is a Handler whose commands run behind a connection of its
// own, as the controller's run behind a sandbox's agent: a real Unix
// socket served by fakeAgent, which it offers to cio.HandOver.
type agentHandler struct {
	agent   string        // the fake agent's socket
	handed  chan bool     // whether each exec's connection went over
	ended   chan execEnd  // each exec's end as the handler saw it
	stopped chan struct{} // closed by a test: a stop mid-exec
	hanging chan struct{} // closed by the agent when a "hang" starts
	hungUp  chan struct{} // closed by the agent when its client left a "hang"
	mine    chan net.Conn // the controller's own connection to each command
}

type execEnd struct {
	code int
	err  error
}

func (h *agentHandler) Handle(ctx context.Context, req ipc.Request) (any, error) {
	return ipc.Empty{}, nil
}
func (h *agentHandler) Subscribe() (<-chan ipc.Event, func()) { return nil, func() {} }

func (h *agentHandler) Exec(ctx context.Context, r ipc.ExecRequest, cio stream.IO) (int, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-h.stopped:
			cancel()
		case <-ctx.Done():
		}
	}()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", h.agent)
	if err != nil {
		return -1, err
	}
	defer conn.Close()
	if hand := cio.HandOver; hand != nil {
		cio.HandOver = func(ctx context.Context, c net.Conn) (bool, int, error) {
			select {
			case h.mine <- c:
			default:
			}
			handed, code, err := hand(ctx, c)
			h.handed <- handed
			return handed, code, err
		}
	}
	line, _ := json.Marshal(r.Args)
	code, err := stream.Exec(ctx, conn, append(line, '\n'), cio)
	h.ended <- execEnd{code, err}
	return code, err
}

// fakeAgent serves commands as the sandbox's agent does: "echo N" copies
// its input to stdout and exits N, "refuse" cannot start, "wait" exits
// 128+N on signal N, "hang" waits for its client to go, "die" drops the
// connection mid-command.
func fakeAgent(t *testing.T, path string, hanging, hungUp chan struct{}) {
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				br := bufio.NewReader(conn)
				line, err := br.ReadBytes('\n')
				if err != nil {
					return
				}
				var args []string
				json.Unmarshal(line, &args)
				sess := stream.Serve(br, conn)
				switch args[0] {
				case "echo":
					io.Copy(sess.Stdout, sess.Stdin())
					code, _ := strconv.Atoi(args[1])
					sess.Exit(code)
				case "refuse":
					sess.Refuse("notFound", "refuse: command not found")
				case "wait":
					select {
					case sig := <-sess.Signals():
						sess.Exit(128 + int(sig))
					case <-sess.Gone():
					}
				case "hang":
					close(hanging)
					<-sess.Gone()
					close(hungUp)
				case "die":
					sess.Stdout.Write([]byte("partial"))
					return
				}
				<-sess.Gone()
			}()
		}
	}()
}

func serveAgent(t *testing.T) (*SocketClient, *agentHandler) {
	t.Helper()
	dir := t.TempDir()
	h := &agentHandler{agent: filepath.Join(dir, "agent.sock"), handed: make(chan bool, 1), ended: make(chan execEnd, 1),
		stopped: make(chan struct{}), hanging: make(chan struct{}), hungUp: make(chan struct{}), mine: make(chan net.Conn, 1)}
	fakeAgent(t, h.agent, h.hanging, h.hungUp)
	path := SocketPath(dir)
	l, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { (&Server{Handler: h}).Serve(ctx, l); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return &SocketClient{Path: path}, h
}

func TestExecHandedOver(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 1<<16) // 1 MiB: credit has to flow from the agent
	tests := []struct {
		name     string
		args     []string
		stdin    io.Reader
		signal   syscall.Signal
		wantOut  string
		wantCode int
		wantErr  string // the client's
	}{
		{name: "input and exit status", args: []string{"echo", "7"}, stdin: strings.NewReader(big), wantOut: big, wantCode: 7},
		{name: "no input", args: []string{"echo", "0"}, wantCode: 0},
		{name: "signal reaches the command", args: []string{"wait"}, signal: syscall.SIGINT, wantCode: 130},
		{name: "refused by the agent", args: []string{"refuse"}, wantCode: -1, wantErr: "refuse: command not found"},
		{name: "agent lost mid-command", args: []string{"die"}, wantOut: "partial", wantCode: -1, wantErr: "connection lost"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, h := serveAgent(t)
			var out strings.Builder
			sigs := make(chan syscall.Signal, 1)
			if tt.signal != 0 {
				sigs <- tt.signal
			}
			code, err := c.Exec(t.Context(), ipc.ExecRequest{Args: tt.args}, stream.IO{Stdin: tt.stdin, Stdout: &out, Signals: sigs})
			if code != tt.wantCode || out.String() != tt.wantOut {
				t.Errorf("exec: %d, %d bytes out; want %d, %d bytes", code, out.Len(), tt.wantCode, len(tt.wantOut))
			}
			if (err == nil) != (tt.wantErr == "") || err != nil && !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("exec error %v, want %q", err, tt.wantErr)
			}
			if !<-h.handed {
				t.Error("the agent's connection was not handed over")
			}
			// the controller's side hears the end the client read
			if end := <-h.ended; end.code != tt.wantCode || (end.err == nil) != (tt.wantErr == "") {
				t.Errorf("the controller saw %d, %v", end.code, end.err)
			}
		})
	}
}

func TestExecStopDuringHandoff(t *testing.T) {
	c, h := serveAgent(t)
	errc := make(chan error, 1)
	go func() {
		_, err := c.Exec(t.Context(), ipc.ExecRequest{Args: []string{"hang"}}, stream.IO{})
		errc <- err
	}()
	<-h.hanging
	// handed over, the connection leaves the controller's poller (every
	// frame between client and command woke it), and a bare descriptor
	// of it is what the stop below shuts down
	mine := <-h.mine
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		if err := mine.SetReadDeadline(time.Time{}); errors.Is(err, net.ErrClosed) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the controller still holds the connection it handed over")
		}
	}
	close(h.stopped) // the controller ends the exec: the sandbox stops
	select {
	case <-h.hungUp:
	case <-time.After(10 * time.Second):
		t.Fatal("the command kept its connection after the controller ended the exec")
	}
	if err := <-errc; err == nil {
		t.Error("the client heard no error from an exec its controller ended")
	}
	if !<-h.handed {
		t.Error("the agent's connection was not handed over")
	}
}

func TestExecWithoutHandoffAsks(t *testing.T) {
	// a client that does not ask (the TypeScript and Python ones) streams
	// through the controller as before
	_, h := serveAgent(t)
	conn, err := dialLocal(t.Context(), filepath.Join(filepath.Dir(h.agent), SocketName))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	line, _ := ipc.EncodeRequest(ipc.ExecRequest{Args: []string{"echo", "3"}})
	var out strings.Builder
	code, err := stream.Exec(t.Context(), conn, line, stream.IO{Stdin: strings.NewReader("through"), Stdout: &out})
	if err != nil || code != 3 || out.String() != "through" {
		t.Errorf("exec: %d, %v, %q", code, err, out.String())
	}
	select {
	case handed := <-h.handed:
		t.Errorf("offered a connection to a client that did not ask (handed %v)", handed)
	default:
	}
}

func TestExecHandoffFromAnOlderController(t *testing.T) {
	// a controller from before the handoff ignores the field and streams
	path := filepath.Join(t.TempDir(), SocketName)
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		conn, err := l.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		bufio.NewReader(conn).ReadBytes('\n')
		stream.Write(conn, stream.Stdout, []byte("hi"))
		stream.Write(conn, stream.Exit, stream.ExitPayload(4))
		io.Copy(io.Discard, conn)
	}()
	var out strings.Builder
	code, err := (&SocketClient{Path: path}).Exec(t.Context(), ipc.ExecRequest{Args: []string{"x"}}, stream.IO{Stdout: &out})
	if err != nil || code != 4 || out.String() != "hi" {
		t.Errorf("exec: %d, %v, %q", code, err, out.String())
	}
}
