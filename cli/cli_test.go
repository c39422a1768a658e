//go:build linux

package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"sandboxdesk/backends/agent"
	"sandboxdesk/daemon"
	"sandboxdesk/rootlock"
	"sandboxdesk/sandboxes"
	"sandboxdesk/wire"
)

// TestMain makes this test binary the agent inside the sandboxes its
// controllers start, as the sandboxdesk binary is.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == agent.Command {
		os.Exit(agent.Main(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// syncBuffer is a buffer a command writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// serveRoot runs a controller for a fresh root in this process, as
// `sandboxdesk serve` does, with the given backend ("" for bubblewrap).
func serveRoot(t *testing.T, backend string) string {
	t.Helper()
	if backend == "" {
		if _, err := exec.LookPath("bwrap"); err != nil {
			t.Skip("bubblewrap is not installed (apt-get install bubblewrap)")
		}
	}
	t.Setenv(daemon.BackendEnv, backend)
	root, err := os.MkdirTemp("", "sdcli") // short: unix socket paths are limited
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c, err := daemon.Open(ctx, root, nil)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { daemon.Serve(ctx, c, nil); close(done) }()
	t.Cleanup(func() {
		cancel()
		<-done
		os.RemoveAll(root)
	})
	client := &wire.SocketClient{Path: wire.SocketPath(root)}
	for i := 0; i < 500 && !sandboxes.Answers(t.Context(), client); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	return root
}

// runIn runs a command line against root and returns its status and output.
func runIn(ctx context.Context, root string, in io.Reader, args ...string) (int, string, string) {
	var out, errb syncBuffer
	code := Run(ctx, append([]string{"--root", root}, args...), IO{In: in, Out: &out, Err: &errb})
	return code, out.String(), errb.String()
}

// within runs f and fails the test if it is still running after 20 s: a
// hang, not a slow machine.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { f(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("%s: still running after 20 s", what)
	}
}

// TestExecEndsWhileStdinStaysOpen: through every hop (CLI, controller
// socket, agent), an exec ends when its command does, though the caller's
// stdin is a pipe nobody closes or a terminal nobody types into; and input
// still reaches a command that reads it.
func TestExecEndsWhileStdinStaysOpen(t *testing.T) {
	root := serveRoot(t, "")
	if code, _, errs := runIn(t.Context(), root, nil, "create", "box"); code != 0 {
		t.Fatalf("create: %d %s", code, errs)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close()
	defer pr.Close()
	within(t, "exec true with a stdin pipe never closed", func() {
		if code, _, errs := runIn(t.Context(), root, pr, "exec", "box", "--", "true"); code != 0 {
			t.Errorf("exec true: %d %s", code, errs)
		}
	})
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	defer tty.Close()
	within(t, "exec true from a terminal nobody types into", func() {
		if code, _, errs := runIn(t.Context(), root, tty, "exec", "box", "--", "true"); code != 0 {
			t.Errorf("exec true from a terminal: %d %s", code, errs)
		}
	})
	within(t, "exec cat", func() {
		if code, out, errs := runIn(t.Context(), root, strings.NewReader("hi\n"), "exec", "box", "--", "cat"); code != 0 || out != "hi\n" {
			t.Errorf("echo hi | exec cat: %d %q %s", code, out, errs)
		}
	})
	// --dir that is not there is bad input, said as such
	code, _, errs := runIn(t.Context(), root, nil, "exec", "box", "--dir", "/no/such/folder", "--", "true")
	if code != ExitUsage || !strings.Contains(errs, "no folder /no/such/folder in sandbox box") {
		t.Errorf("exec --dir /no/such/folder: %d %q", code, errs)
	}
}

// TestContractGaps: bad input is one line and exit status 2 in every
// command, exec included; an operation that fails is 1.
func TestContractGaps(t *testing.T) {
	root := serveRoot(t, "testvm")
	if code, _, errs := runIn(t.Context(), root, nil, "create", "box"); code != 0 {
		t.Fatalf("create: %d %s", code, errs)
	}
	tests := []struct {
		name   string
		args   []string // without --root, unless the case is about it
		noRoot bool
		code   int
		stderr string
	}{
		{name: "empty --root", args: []string{"list", "--root", ""}, noRoot: true, code: 2, stderr: `--root "": is empty`},
		{name: "empty --root=", args: []string{"--root=", "list"}, noRoot: true, code: 2, stderr: `is empty`},
		{name: "empty --root alone", args: []string{"--root", ""}, noRoot: true, code: 2, stderr: `is empty`},
		{name: "exec on a bad name", args: []string{"exec", "Bad Name", "--", "true"}, code: 2, stderr: `name "Bad Name" is not valid`},
		{name: "exec on a missing name", args: []string{"exec", "nosuch", "--", "true"}, code: 1, stderr: "no sandbox named nosuch"},
		{name: "inspect on a bad name", args: []string{"inspect", "Bad Name"}, code: 2, stderr: `is not valid`},
		{name: "--env without =", args: []string{"exec", "box", "--env", "FOO", "--", "true"}, code: 2, stderr: `--env "FOO": not KEY=VALUE`},
		{name: "--env with an empty key", args: []string{"exec", "box", "--env", "=x", "--", "true"}, code: 2, stderr: `not KEY=VALUE`},
		{name: "help on an unknown command", args: []string{"help", "bogus"}, noRoot: true, code: 2, stderr: `unknown command "bogus"`},
		{name: "--env KEY=VALUE reaches the command", args: []string{"exec", "box", "--env", "FOO=bar", "--", "sh", "-c", `test "$FOO" = bar`}, code: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args
			if !tt.noRoot {
				args = append([]string{"--root", root}, args...)
			}
			var out, errb syncBuffer
			code := Run(t.Context(), args, IO{In: strings.NewReader(""), Out: &out, Err: &errb})
			if code != tt.code || !strings.Contains(errb.String(), tt.stderr) {
				t.Errorf("status %d, stderr %q; want %d and %q", code, errb.String(), tt.code, tt.stderr)
			}
			if tt.code == 2 && strings.Count(errb.String(), "\n") != 1 {
				t.Errorf("bad input said in %d lines: %q", strings.Count(errb.String(), "\n"), errb.String())
			}
		})
	}
}

// TestFakeBackendExecEndsWhileStdinStaysOpen: the test backend, which the
// controller and UI tests run on, behaves as the real one.
func TestFakeBackendExecEndsWhileStdinStaysOpen(t *testing.T) {
	root := serveRoot(t, "testvm")
	if code, _, errs := runIn(t.Context(), root, nil, "create", "box"); code != 0 {
		t.Fatalf("create: %d %s", code, errs)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close()
	defer pr.Close()
	within(t, "exec true with a stdin pipe never closed", func() {
		if code, _, errs := runIn(t.Context(), root, pr, "exec", "box", "--", "true"); code != 0 {
			t.Errorf("exec true: %d %s", code, errs)
		}
	})
}

// TestQueuedCreateSaysSo: a create beyond the "at once" limit says on
// stderr that it is queued and where, and when called off, why.
func TestQueuedCreateSaysSo(t *testing.T) {
	root := serveRoot(t, "testvm")
	for _, args := range [][]string{{"limits", "--at-once", "1"}, {"create", "first"}} {
		if code, _, errs := runIn(t.Context(), root, nil, args...); code != 0 {
			t.Fatalf("%v: %d %s", args, code, errs)
		}
	}
	ctx, cancel := context.WithCancelCause(t.Context())
	var errb syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, []string{"--root", root, "create", "second"}, IO{In: strings.NewReader(""), Out: io.Discard, Err: &errb})
	}()
	for i := 0; i < 2000 && !strings.Contains(errb.String(), "queued"); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(errb.String(), "second is queued, #1 in line: this root runs 1 at once, its limit") {
		t.Fatalf("a queued create said %q", errb.String())
	}
	cancel(errors.New("the test called it off"))
	within(t, "a called-off create", func() {
		if code := <-done; code != ExitFailure {
			t.Errorf("called-off create: status %d", code)
		}
	})
	if !strings.Contains(errb.String(), "create second called off while queued (#1 in line): the test called it off; nothing was started") {
		t.Errorf("called off, the create said %q", errb.String())
	}
}

// TestQuitWaitsForTheController: quit returns once the controller has let
// go of the root, so the next command finds no controller stopping.
func TestQuitWaitsForTheController(t *testing.T) {
	root := serveRoot(t, "testvm")
	if code, _, errs := runIn(t.Context(), root, nil, "create", "box"); code != 0 {
		t.Fatalf("create: %d %s", code, errs)
	}
	code, out, errs := runIn(t.Context(), root, nil, "quit")
	if code != 0 || !strings.Contains(out, "stopped the controller") || !strings.Contains(errs, "stopping the controller for") {
		t.Fatalf("quit: %d %q %q", code, out, errs)
	}
	if pid, err := rootlock.Holder(root); pid != 0 || err != nil {
		t.Errorf("after quit the root is still held by pid %d (%v)", pid, err)
	}
	code, out, _ = runIn(t.Context(), root, nil, "quit")
	if code != 0 || !strings.Contains(out, "no controller is running") {
		t.Errorf("second quit: %d %q", code, out)
	}
}

// TestDiskLimitSaidHonestly: bubblewrap cannot hold a sandbox's folders to
// --disk, so a 2 GiB write under --disk 1GiB succeeds, and inspect says the
// disk is not enforced rather than implying a limit.
func TestDiskLimitSaidHonestly(t *testing.T) {
	root := serveRoot(t, "")
	if code, _, errs := runIn(t.Context(), root, nil, "create", "d", "--disk", "1GiB", "--pids", "512"); code != 0 {
		t.Fatalf("create: %d %s", code, errs)
	}
	code, _, errs := runIn(t.Context(), root, nil, "exec", "d", "--", "sh", "-c", "fallocate -l 2G ~/big || head -c 2147483648 /dev/zero > ~/big; rm -f ~/big")
	if code != 0 {
		t.Fatalf("a 2 GiB write under --disk 1GiB failed (%d %s): the disk is enforced, and inspect must say so", code, errs)
	}
	_, out, _ := runIn(t.Context(), root, nil, "inspect", "d")
	if !strings.Contains(out, "1 GiB, not enforced") {
		t.Errorf("inspect does not say the disk is not enforced:\n%s", out)
	}
	_, js, _ := runIn(t.Context(), root, nil, "inspect", "d", "--json")
	if strings.Contains(js, `"diskLimitMiB"`) || !strings.Contains(js, `"diskMiB": 1024`) || !strings.Contains(js, `"pids": 512`) {
		t.Errorf("inspect --json: %s", js)
	}
	if os.Geteuid() == 0 && !strings.Contains(js, `"pidsLimit": 512`) {
		t.Errorf("as root the process limit is enforced, but inspect --json says %s", js)
	}
}

// TestExecFromDevNullSaysNoInput: a CLI whose stdin is the null device
// tells the controller, with the request, that no input comes; the
// command then starts on an empty input (/dev/null), not on a pipe.
func TestExecFromDevNullSaysNoInput(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd/0"); err != nil {
		t.Skip("no /proc here to name the command's stdin:", err)
	}
	root := serveRoot(t, "testvm")
	if code, _, errs := runIn(t.Context(), root, nil, "create", "box"); code != 0 {
		t.Fatalf("create: %d %s", code, errs)
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	code, out, errs := runIn(t.Context(), root, null, "exec", "box", "--", "readlink", "/proc/self/fd/0")
	if code != 0 || out != "/dev/null\n" {
		t.Errorf("stdin of a command run from /dev/null: %d, %q, %s; want /dev/null", code, out, errs)
	}
}
