package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"

	"sandboxdesk/assets"
	"sandboxdesk/autostart"
	"sandboxdesk/daemon"
	"sandboxdesk/ipc"
	"sandboxdesk/rules"
	"sandboxdesk/stream"
	"sandboxdesk/ui"
	"sandboxdesk/wire"
)

// appID identifies the app to the desktop (preferences, notifications).
const appID = "dev.sandboxdesk.app"

// noDisplay says why the window cannot open on a Unix desktop without a
// display server, or with a local X display nothing answers on, "" when
// it can: GLFW would panic with a stack trace instead of a line a person
// can act on. macOS and Windows always
// have their own.
func noDisplay(goos string, getenv func(string) string) string {
	if goos == "darwin" || goos == "windows" {
		return ""
	}
	if getenv("WAYLAND_DISPLAY") != "" {
		return ""
	}
	display := getenv("DISPLAY")
	if display == "" {
		return "no display to open the window on (DISPLAY and WAYLAND_DISPLAY are unset): start it from a desktop session, or run `sandboxdesk serve` for the controller without a window"
	}
	if sockets := xSockets(display); sockets != nil && !anyAnswers(sockets) {
		return fmt.Sprintf("no X server answers on DISPLAY=%s: start the display server, fix DISPLAY, or run `sandboxdesk serve` for the controller without a window", display)
	}
	return ""
}

// xSockets are the sockets an X server of a local DISPLAY (":0",
// "unix:0.0") listens on, the abstract one first; nil for a display
// elsewhere (a host name, ssh forwarding on TCP), which GLFW is left to
// reach.
func xSockets(display string) []string {
	rest, ok := strings.CutPrefix(display, "unix:")
	if !ok {
		if rest, ok = strings.CutPrefix(display, ":"); !ok {
			return nil
		}
	}
	n, _, _ := strings.Cut(rest, ".")
	if _, err := strconv.Atoi(n); err != nil {
		return nil
	}
	p := "/tmp/.X11-unix/X" + n
	return []string{"@" + p, p}
}

// anyAnswers reports whether one of the unix sockets accepts a
// connection.
func anyAnswers(sockets []string) bool {
	for _, s := range sockets {
		if c, err := net.DialTimeout("unix", s, time.Second); err == nil {
			c.Close()
			return true
		}
	}
	return false
}

// runDesktop is the app: the controller of the root, its socket for the
// CLI, and the window, until the app is quit (its Quit, the window closed
// where there is no tray, or a client asking the controller to quit).
// The sandboxes stop before the process ends.
func runDesktop(rootFlag string) int {
	root, err := rules.ResolveRoot(rootFlag)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sandboxdesk:", err)
		return 1
	}
	if msg := noDisplay(runtime.GOOS, os.Getenv); msg != "" {
		fmt.Fprintln(os.Stderr, "sandboxdesk:", msg)
		return 1
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	keepBusUnlaunched(os.Getenv, os.Setenv) // before Fyne looks for the desktop's theme
	// the window's first frame parses fonts and draws icons, tens of MiB
	// of short-lived allocations: collected at the default pace, that
	// was several collections on the way to the window
	gc := debug.SetGCPercent(400)
	a := app.NewWithID(appID)
	a.SetIcon(assets.Icon)
	conn := &lateClient{}
	// the tray, when there is one, must be set up before the loop runs:
	// the window comes first, the controller joins it when it is ready
	u, err := openWindow(func() *ui.App { return ui.New(a, conn, root, hasTray()) })
	if err != nil {
		fmt.Fprintln(os.Stderr, "sandboxdesk:", err)
		return 1
	}
	if exe, err := os.Executable(); err == nil {
		// the program as it was started (a link in PATH stays a link), so
		// the entry follows an upgrade that replaces what the link names
		u.Login = autostart.Login{Name: "sandboxdesk", Exec: exe}
	}
	u.OnQuit = func() {
		cancel()
		conn.waitServed()
		quitApp(a)
	}
	// the controller starts as the window's loop begins, once the window
	// is made: started beside the window from the first instruction, its
	// database and checks took a small machine's processor from the
	// window's making (some 10 ms of 100 to the window on 2 cores)
	a.Lifecycle().SetOnStarted(func() {
		debug.SetGCPercent(gc)
		// a quit already queued runs right after this: it must find the
		// start under way, and wait for it, or the app exits halfway
		// through taking the root
		done := conn.begin()
		go func() {
			client, served, err := connect(ctx, root, log, u.SetStatus)
			if err != nil {
				done()
				if ctx.Err() == nil {
					u.SetStatus("sandboxdesk cannot run sandboxes here: " + err.Error())
				}
				return
			}
			conn.set(client, served)
			done()
			// what the window's start and the controller's left behind
			// goes back to the system, not kept for a tray app's lifetime
			debug.FreeOSMemory()
			if served != nil {
				go func() {
					<-served // a client asked the controller to quit
					quitApp(a)
				}()
			}
			u.Run(ctx)
		}()
	})
	// `sandboxdesk quit` signals a controller that holds the root but does
	// not answer on its socket: stop as Quit does
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, os.Interrupt)
	defer signal.Stop(sigs)
	go func() {
		if _, ok := <-sigs; ok {
			quitApp(a)
		}
	}()
	showAndRun(u.Window(), log)
	cancel()
	conn.waitServed() // the controller stops its sandboxes before the app exits
	return 0
}

// openWindow builds the app's window. A display server can answer
// noDisplay's knock and still shut the connection GLFW then opens (one
// resetting as its last client left, one refusing this user); Fyne then
// panics from deep in its driver, a stack trace where a person needs one
// line. Nothing has started yet that the panic could leave half done.
func openWindow(build func() *ui.App) (u *ui.App, err error) {
	defer func() {
		if r := recover(); r != nil {
			where := "the display"
			if d := os.Getenv("DISPLAY"); d != "" {
				where = "DISPLAY=" + d
			}
			err = fmt.Errorf("the window could not open on %s (%v): check that the display server runs and lets this user in, or run `sandboxdesk serve` for the controller without a window", where, r)
		}
	}()
	return build(), nil
}

// quitApp quits Fyne from any goroutine. The window may be quitting by
// itself at the same moment; Fyne panics when asked to quit a window it
// already tore down.
func quitApp(a fyne.App) {
	fyne.Do(func() {
		defer func() { recover() }()
		a.Quit()
	})
}

// connect makes this process the root's controller, serving the CLI on
// its socket, and returns the in-process client the UI uses. When another
// process (a `sandboxdesk serve`) already owns the root and answers, the
// UI uses its socket instead; when the owner no longer answers it is a
// sandboxdesk that is quitting, and connect waits for it, saying so.
func connect(ctx context.Context, root string, log *slog.Logger, say func(string)) (ipc.Client, <-chan struct{}, error) {
	waiting := false
	for {
		d, err := daemon.Open(ctx, root, log)
		if err == nil {
			if waiting {
				say("")
			}
			return serve(ctx, d, log, say)
		}
		if !errors.Is(err, ipc.ErrConflict) {
			return nil, nil, err
		}
		sock := &wire.SocketClient{Path: wire.SocketPath(root)}
		if answers(ctx, sock) {
			return sock, nil, nil
		}
		if !waiting {
			say("Waiting for the sandboxdesk that is quitting to stop its sandboxes…")
			waiting = true
		}
		select {
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// serve serves the root d owns, for the CLI on its socket, and returns
// the in-process client the UI uses and a channel closed once the
// controller has stopped. While it stops, say tells how far it is.
func serve(ctx context.Context, d *daemon.Daemon, log *slog.Logger, say func(string)) (ipc.Client, <-chan struct{}, error) {
	// subscribed before the quit can begin, so its first stop is heard
	go reportQuit(ctx, d.Events(), say)
	served := make(chan struct{})
	go func() {
		defer close(served)
		if err := daemon.Serve(ctx, d, log); err != nil {
			log.Error("serve", "err", err)
		}
	}()
	return d.Client(ctx), served, nil
}

// reportQuit says, while the controller stops its sandboxes as the app
// quits, how far it is: a VM saving its memory takes seconds, and a
// window that only says "stopping" for that long looks hung. Until the
// quit (ctx ending) the events are the window's own business.
func reportQuit(ctx context.Context, events <-chan ipc.Event, say func(string)) {
	var p quitProgress
	for e := range events {
		if ctx.Err() == nil {
			continue
		}
		if line, ok := p.line(e); ok {
			say(line)
		}
	}
}

// quitProgress turns the state changes of a quitting controller into the
// line the window shows. Only a sandbox seen stopping counts as done: an
// event from before the quit may still be on its way.
type quitProgress struct {
	stopping map[string]bool
	done     int
}

func (p *quitProgress) line(e ipc.Event) (string, bool) {
	if e.Kind != ipc.EventState || e.Sandbox == "" {
		return "", false
	}
	const head = "Stopping the sandboxes before quitting: "
	switch e.State {
	case ipc.StateStopping:
		if p.stopping == nil {
			p.stopping = map[string]bool{}
		}
		p.stopping[e.Sandbox] = true
		return fmt.Sprintf("%s%s is stopping (%d done)…", head, e.Sandbox, p.done), true
	case ipc.StateSuspended, ipc.StateStopped:
		if !p.stopping[e.Sandbox] {
			return "", false
		}
		delete(p.stopping, e.Sandbox)
		p.done++
		if e.State == ipc.StateSuspended {
			return fmt.Sprintf("%s%s is saved, its processes resume at the next launch (%d done)…", head, e.Sandbox, p.done), true
		}
		return fmt.Sprintf("%s%s is stopped, it starts again at the next launch (%d done)…", head, e.Sandbox, p.done), true
	}
	return "", false
}

// answers reports whether the controller behind sock serves requests.
func answers(ctx context.Context, sock *wire.SocketClient) bool {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	var st any // only whether a reply came matters
	return sock.Call(ctx, ipc.StatusRequest{}, &st) == nil
}

// showAndRun runs the window until the app quits. A failure in Fyne's
// teardown must not skip the graceful stop of the sandboxes that follows.
func showAndRun(w fyne.Window, log *slog.Logger) {
	defer func() {
		if r := recover(); r != nil {
			log.Error("the window's teardown failed", "panic", r)
		}
	}()
	w.ShowAndRun()
}

// lateClient is the UI's client before and after the controller is
// reached: until then every request says it is not ready yet, rather
// than hold the window up.
type lateClient struct {
	mu     sync.Mutex
	client ipc.Client
	served <-chan struct{}
	// starting holds while the controller is being reached: until then
	// whether this process serves the root is not known
	starting sync.WaitGroup
}

var errNotYet = ipc.Errorf(ipc.ErrUnavailable, "sandboxdesk is still starting its controller; try again in a moment")

func (l *lateClient) set(c ipc.Client, served <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.client, l.served = c, served
}

func (l *lateClient) get() ipc.Client {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.client
}

// begin marks the controller as being reached, until the returned
// function is called.
func (l *lateClient) begin() func() {
	l.starting.Add(1)
	return l.starting.Done
}

// waitServed waits for a start under way to end, then for this process's
// controller, if it has one, to stop.
func (l *lateClient) waitServed() {
	l.starting.Wait()
	l.mu.Lock()
	s := l.served
	l.mu.Unlock()
	if s != nil {
		<-s
	}
}

func (l *lateClient) Call(ctx context.Context, req ipc.Request, out any) error {
	if c := l.get(); c != nil {
		return c.Call(ctx, req, out)
	}
	return errNotYet
}

func (l *lateClient) Exec(ctx context.Context, req ipc.ExecRequest, cio stream.IO) (int, error) {
	if c := l.get(); c != nil {
		return c.Exec(ctx, req, cio)
	}
	return -1, errNotYet
}

func (l *lateClient) Subscribe(ctx context.Context) (<-chan ipc.Event, error) {
	if c := l.get(); c != nil {
		return c.Subscribe(ctx)
	}
	return nil, errNotYet
}
