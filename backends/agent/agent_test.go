//go:build unix

package agent

import (
	"bytes"
	"context"
	"crypto/sha256"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"sandboxdesk/stream"
)

func serve(t *testing.T) Dialer {
	t.Helper()
	dir, err := os.MkdirTemp("", "agt") // short: unix socket paths are limited
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "a.sock")
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ready := make(chan struct{})
	go func() {
		l, err := net.Listen("unix", path)
		if err != nil {
			t.Error(err)
			return
		}
		close(ready)
		go func() { <-ctx.Done(); l.Close() }()
		(&Server{Env: os.Environ(), Dir: dir}).Serve(l)
	}()
	<-ready
	return func(ctx context.Context) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", path)
	}
}

func TestExec(t *testing.T) {
	dial := serve(t)
	tests := []struct {
		args     []string
		stdin    string
		code     int
		stdout   string
		stderrIn string
	}{
		{[]string{"sh", "-c", "echo hello"}, "", 0, "hello\n", ""},
		{[]string{"sh", "-c", "exit 7"}, "", 7, "", ""},
		{[]string{"cat"}, "echoed back", 0, "echoed back", ""},
		{[]string{"sh", "-c", "echo oops >&2; exit 3"}, "", 3, "", "oops"},
		{[]string{"sh", "-c", "kill -9 $$"}, "", 137, "", ""},
		// a background process holding stdout does not hold the command
		{[]string{"sh", "-c", "sleep 30 & echo started"}, "", 0, "started\n", ""},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		code, err := Exec(t.Context(), dial, Request{Args: tt.args}, stream.IO{Stdin: strings.NewReader(tt.stdin), Stdout: &out, Stderr: &errb})
		if err != nil {
			t.Fatalf("%v: %v", tt.args, err)
		}
		if code != tt.code || out.String() != tt.stdout || !strings.Contains(errb.String(), tt.stderrIn) {
			t.Errorf("%v: code %d, stdout %q, stderr %q", tt.args, code, out.String(), errb.String())
		}
	}
}

func TestExecNotFound(t *testing.T) {
	dial := serve(t)
	_, err := Exec(t.Context(), dial, Request{Args: []string{"/no/such/program"}}, stream.IO{})
	var se *StartError
	if err == nil || !asStartError(err, &se) {
		t.Errorf("exec of a missing program: %v", err)
	}
}

func asStartError(err error, se **StartError) bool {
	s, ok := err.(*StartError)
	*se = s
	return ok
}

func TestLargeOutputIntact(t *testing.T) {
	dial := serve(t)
	h := sha256.New()
	code, err := Exec(t.Context(), dial, Request{Args: []string{"sh", "-c", "head -c 33554432 /dev/zero | tr '\\0' x"}}, stream.IO{Stdout: h})
	if err != nil || code != 0 {
		t.Fatal(code, err)
	}
	want := sha256.Sum256(bytes.Repeat([]byte("x"), 32<<20))
	if !bytes.Equal(h.Sum(nil), want[:]) {
		t.Error("32 MiB of output arrived changed")
	}
}

func TestDisconnectKillsTheCommand(t *testing.T) {
	dial := serve(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "pid")
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		Exec(ctx, dial, Request{Args: []string{"sh", "-c", "echo $$ > " + marker + "; exec sleep 60"}}, stream.IO{})
		close(done)
	}()
	var pid string
	for i := 0; i < 500 && pid == ""; i++ {
		b, _ := os.ReadFile(marker)
		pid = strings.TrimSpace(string(b))
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-done
	for i := 0; i < 500; i++ {
		if _, err := os.Stat("/proc/" + pid); err != nil {
			return
		}
		if b, _ := os.ReadFile("/proc/" + pid + "/stat"); isZombie(b) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("command %s still runs after its client went away", pid)
}

func TestPing(t *testing.T) {
	dial := serve(t)
	if code, err := Call(t.Context(), dial, Request{Op: "ping"}); err != nil || code != 0 {
		t.Errorf("ping: %d, %v", code, err)
	}
	if _, err := Call(t.Context(), dial, Request{Op: "dance"}); err == nil {
		t.Error("unknown op accepted")
	}
}

func TestExecOnATerminal(t *testing.T) {
	dial := serve(t)
	var out bytes.Buffer
	resizes := make(chan stream.Size, 1)
	resizes <- stream.Size{Rows: 50, Cols: 132}
	code, err := Exec(t.Context(), dial, Request{Args: []string{"sh", "-c", "sleep 0.2; tty; stty size"}, TTY: &stream.Size{Rows: 24, Cols: 80}},
		stream.IO{Stdin: strings.NewReader(""), Stdout: &out, Resizes: resizes})
	if err != nil || code != 0 {
		t.Fatalf("exec on a terminal: %d, %v, %q", code, err, out.String())
	}
	if !strings.Contains(out.String(), "/dev/pts/") || !strings.Contains(out.String(), "50 132") {
		t.Errorf("on a terminal of 50x132: %q", out.String())
	}
}

// TestExecEndsWhateverStdinDoes: the command's end ends the exec, though
// the caller's input is neither written to nor closed (an agent's child
// with a default stdin pipe, a terminal nobody types into), and input still
// reaches a command that reads it.
func TestExecEndsWhateverStdinDoes(t *testing.T) {
	dial := serve(t)
	tests := []struct {
		name  string
		args  []string
		tty   bool
		input string // written, then the pipe stays open
		want  string
	}{
		{name: "true, stdin never closed", args: []string{"true"}},
		{name: "true on a terminal, nobody typing", args: []string{"true"}, tty: true},
		{name: "head reads what was sent, stdin left open", args: []string{"head", "-c", "3"}, input: "abcdef", want: "abc"},
		{name: "a background reader keeps stdin", args: []string{"sh", "-c", "cat >/dev/null & echo bg"}, want: "bg\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer pw.Close()
			defer pr.Close()
			if _, err := pw.WriteString(tt.input); err != nil {
				t.Fatal(err)
			}
			req := Request{Args: tt.args}
			if tt.tty {
				req.TTY = &stream.Size{Rows: 24, Cols: 80}
			}
			var out bytes.Buffer
			type result struct {
				code int
				err  error
			}
			done := make(chan result, 1)
			go func() {
				code, err := Exec(t.Context(), dial, req, stream.IO{Stdin: pr, Stdout: &out})
				done <- result{code, err}
			}()
			select {
			case r := <-done:
				if r.err != nil || r.code != 0 {
					t.Fatalf("exec: %d, %v", r.code, r.err)
				}
				if !tt.tty && out.String() != tt.want {
					t.Errorf("stdout %q, want %q", out.String(), tt.want)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("exec still running 20 s after its command ended: it waits for stdin")
			}
		})
	}
}

// endless is input that never ends; reached is closed once it has given
// after bytes.
type endless struct {
	given, after int
	reached      chan struct{}
}

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'y'
	}
	if e.given < e.after && e.given+len(p) >= e.after {
		close(e.reached)
	}
	e.given += len(p)
	return len(p), nil
}

// TestCtrlCPassesInputNobodyReads: `yes | exec -- sleep 1000`, then
// Ctrl-C: the signal reaches the command though its input backs up.
func TestCtrlCPassesInputNobodyReads(t *testing.T) {
	dial := serve(t)
	in := &endless{after: stream.Window / 2, reached: make(chan struct{})}
	sigs := make(chan syscall.Signal, 1)
	go func() { <-in.reached; sigs <- syscall.SIGINT }()
	done := make(chan int, 1)
	go func() {
		code, _ := Exec(t.Context(), dial, Request{Args: []string{"sleep", "1000"}}, stream.IO{Stdin: in, Signals: sigs})
		done <- code
	}()
	select {
	case code := <-done:
		if code != 130 {
			t.Errorf("exit status %d, want 130 (SIGINT)", code)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Ctrl-C is still queued behind input nobody reads after 20 s")
	}
}

func TestInheritedSocketRefusesBadDescriptors(t *testing.T) {
	for _, fd := range []string{"", "x", "-1", "0", "2"} {
		if err := (&Server{}).serveInherited(fd); err == nil || !strings.Contains(err.Error(), "bad inherited socket") {
			t.Errorf("fd:%s: %v; want a bad inherited socket error", fd, err)
		}
	}
}

// TestExecWithoutInputReadsNothing: an exec without input starts the
// command on /dev/null, not on a pipe someone must feed and close.
func TestExecWithoutInputReadsNothing(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd/0"); err != nil {
		t.Skip("no /proc here to name the command's stdin:", err)
	}
	dial := serve(t)
	var out bytes.Buffer
	code, err := Exec(t.Context(), dial, Request{Args: []string{"readlink", "/proc/self/fd/0"}}, stream.IO{Stdout: &out})
	if err != nil || code != 0 || out.String() != "/dev/null\n" {
		t.Errorf("stdin of an exec without input: %d, %v, %q; want /dev/null", code, err, out.String())
	}
	out.Reset()
	code, err = Exec(t.Context(), dial, Request{Args: []string{"readlink", "/proc/self/fd/0"}}, stream.IO{Stdin: strings.NewReader("x"), Stdout: &out})
	if err != nil || code != 0 || !strings.HasPrefix(out.String(), "pipe:") {
		t.Errorf("stdin of an exec with input: %d, %v, %q; want a pipe", code, err, out.String())
	}
}
