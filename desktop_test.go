package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"sandboxdesk/backends/testvm"
	"sandboxdesk/daemon"
	"sandboxdesk/ipc"
)

// A relaunch while the previous instance still holds the root but no
// longer answers (it is stopping its sandboxes) waits for it, with a line
// saying so, then becomes the controller itself.
func TestRelaunchWaitsForTheInstanceThatIsQuitting(t *testing.T) {
	t.Setenv(daemon.BackendEnv, testvm.Name)
	root := t.TempDir()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	previous, err := daemon.Open(t.Context(), root, log) // holds the root, serves nothing
	if err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 10)
	type result struct {
		client ipc.Client
		served <-chan struct{}
		err    error
	}
	done := make(chan result, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		c, s, err := connect(ctx, root, log, func(line string) { lines <- line })
		done <- result{c, s, err}
	}()
	if line := <-lines; !strings.Contains(line, "Waiting for the sandboxdesk that is quitting") {
		t.Fatalf("the window says %q", line)
	}
	previous.Close()
	r := <-done
	if r.err != nil || r.served == nil {
		t.Fatalf("after the previous instance stopped: %v, serving %v", r.err, r.served != nil)
	}
	if line := <-lines; line != "" {
		t.Errorf("the waiting line stays: %q", line)
	}
	var list []ipc.Sandbox
	if err := r.client.Call(t.Context(), ipc.ListRequest{}, &list); err != nil {
		t.Errorf("the new controller does not answer: %v", err)
	}
	cancel()
	<-r.served
}

// Quitting says, sandbox by sandbox, how far the stop has come.
func TestQuitSaysHowFarItIs(t *testing.T) {
	t.Setenv(daemon.BackendEnv, testvm.Name)
	root := t.TempDir()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	var mu sync.Mutex
	var lines []string
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client, served, err := connect(ctx, root, log, func(line string) {
		mu.Lock()
		lines = append(lines, line)
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	two := 2
	if err := client.Call(t.Context(), ipc.SetLimitsRequest{AtOnce: &two}, nil); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"web", "db"} {
		if err := client.Call(t.Context(), ipc.CreateRequest{Name: n}, nil); err != nil {
			t.Fatal(err)
		}
	}
	cancel()
	<-served
	// the last events are delivered as the controller closes: wait for
	// them (the bound only keeps a broken report from hanging the test)
	said := ""
	for i := 0; i < 1000 && !strings.Contains(said, "(2 done)"); i++ {
		time.Sleep(10 * time.Millisecond)
		mu.Lock()
		said = strings.Join(lines, "\n")
		mu.Unlock()
	}
	for _, want := range []string{"web is stopped, it starts again at the next launch", "db is stopped", "(2 done)"} {
		if !strings.Contains(said, want) {
			t.Errorf("the window never says %q; it said:\n%s", want, said)
		}
	}
}

func TestQuitProgressLines(t *testing.T) {
	var p quitProgress
	tests := []struct {
		e    ipc.Event
		want string
	}{
		// a stop from before the quit, heard late, is not counted
		{ipc.Event{Kind: ipc.EventState, Sandbox: "db", State: ipc.StateStopped}, ""},
		{ipc.Event{Kind: ipc.EventState, Sandbox: "web", State: ipc.StateStopping}, "Stopping the sandboxes before quitting: web is stopping (0 done)…"},
		{ipc.Event{Kind: ipc.EventState, Sandbox: "web", State: ipc.StateSuspended}, "Stopping the sandboxes before quitting: web is saved, its processes resume at the next launch (1 done)…"},
		{ipc.Event{Kind: ipc.EventNotice, Message: "images changed"}, ""},
		{ipc.Event{Kind: ipc.EventState, Sandbox: "db", State: ipc.StateStopping}, "Stopping the sandboxes before quitting: db is stopping (1 done)…"},
		{ipc.Event{Kind: ipc.EventState, Sandbox: "db", State: ipc.StateStopped}, "Stopping the sandboxes before quitting: db is stopped, it starts again at the next launch (2 done)…"},
	}
	for _, tt := range tests {
		got, ok := p.line(tt.e)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("%+v: %q, %v; want %q", tt.e, got, ok, tt.want)
		}
	}
}

func TestNoDisplaySaysSoInOneLine(t *testing.T) {
	// an X server of its own: abstract sockets are the network
	// namespace's, so the test listens where Xvfb would
	xvfb := ":4712"
	if runtime.GOOS == "linux" {
		l, err := net.Listen("unix", "@/tmp/.X11-unix/X4712")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
	}
	tests := []struct {
		name   string
		goos   string
		env    map[string]string
		refuse bool
	}{
		{"linux without a display", "linux", nil, true},
		{"linux with X", "linux", map[string]string{"DISPLAY": xvfb}, false},
		{"linux with X elsewhere", "linux", map[string]string{"DISPLAY": "remote.example:10.0"}, false},
		{"linux with an X display nothing answers on", "linux", map[string]string{"DISPLAY": ":4711"}, true},
		{"linux with an X display nothing answers on, unix:", "linux", map[string]string{"DISPLAY": "unix:4711.0"}, true},
		{"linux with Wayland", "linux", map[string]string{"WAYLAND_DISPLAY": "wayland-0"}, false},
		{"freebsd without a display", "freebsd", nil, true},
		{"macOS", "darwin", nil, false},
		{"windows", "windows", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if runtime.GOOS != "linux" && tt.goos == "linux" {
				t.Skip("the X sockets are Linux's abstract ones")
			}
			msg := noDisplay(tt.goos, func(k string) string { return tt.env[k] })
			if (msg != "") != tt.refuse {
				t.Fatalf("noDisplay = %q, want a refusal: %v", msg, tt.refuse)
			}
			if tt.refuse && (!strings.Contains(msg, "DISPLAY") || !strings.Contains(msg, "sandboxdesk serve") || strings.Contains(msg, "\n")) {
				t.Errorf("noDisplay = %q, want one line naming DISPLAY and serve", msg)
			}
		})
	}
}

// TestMain runs the app itself when a test starts this test binary as
// the app (TestWindowThatCannotOpenSaysSoInOneLine): Fyne's driver must
// run on the main goroutine.
func TestMain(m *testing.M) {
	if root := os.Getenv("SANDBOXDESK_TEST_APP_ROOT"); root != "" {
		os.Exit(runDesktop(root))
	}
	os.Exit(m.Run())
}

// A display server that answers the knock but shuts the connection GLFW
// opens (one resetting, one refusing this user) costs the app one line
// and exit status 1, not a panic's stack trace.
func TestWindowThatCannotOpenSaysSoInOneLine(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the fake X server listens on Linux's abstract sockets")
	}
	l, err := net.Listen("unix", "@/tmp/.X11-unix/X4713")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() { // takes each connection and shuts it at once
		for c, err := l.Accept(); err == nil; c, err = l.Accept() {
			c.Close()
		}
	}()
	home := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "SANDBOXDESK_TEST_APP_ROOT="+t.TempDir(), "DISPLAY=:4713", "WAYLAND_DISPLAY=",
		"HOME="+home, "XDG_CONFIG_HOME="+home, "LANG=en_US.UTF-8")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("the app ended with %v, want exit status 1; it said:\n%s", err, stderr.String())
	}
	out := stderr.String()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	last := lines[len(lines)-1]
	if strings.Contains(out, "panic") || strings.Contains(out, "goroutine ") ||
		!strings.HasPrefix(last, "sandboxdesk: the window could not open on DISPLAY=:4713 (") {
		t.Errorf("the app said:\n%s\nwant its last line to say the window could not open on DISPLAY=:4713, and no panic", out)
	}
}

// A quit that comes while the controller is still being reached (a
// SIGTERM queued while the window was built runs right after the start
// begins) waits for that start to end and then for the controller it
// made to stop: the app must not exit halfway through taking the root.
func TestQuitWaitsForTheControllerBeingReached(t *testing.T) {
	var l lateClient
	done := l.begin()
	returned := make(chan struct{})
	go func() {
		l.waitServed()
		close(returned)
	}()
	// the quit is waiting, or (the defect) has already given up
	for !waitingIn("(*lateClient).waitServed") {
		select {
		case <-returned:
			t.Fatal("waitServed returned while the controller was still being reached")
		default:
			runtime.Gosched()
		}
	}
	served := make(chan struct{})
	l.set(fakeClientForQuit{}, served)
	done()
	for !waitingIn("(*lateClient).waitServed") {
		runtime.Gosched()
	}
	select {
	case <-returned:
		t.Fatal("waitServed returned before the controller stopped")
	default:
	}
	close(served)
	<-returned
}

// waitingIn reports whether a goroutine is blocked inside fn.
func waitingIn(fn string) bool {
	buf := make([]byte, 1<<20)
	for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
		head, _, _ := strings.Cut(g, "\n")
		if strings.Contains(g, fn) && !strings.Contains(head, "[running]") && !strings.Contains(head, "[runnable]") {
			return true
		}
	}
	return false
}

type fakeClientForQuit struct{ ipc.Client }
