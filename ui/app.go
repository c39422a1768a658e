package ui

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"

	"sandboxdesk/ipc"
)

// App is the desktop front end of one controller.
type App struct {
	fyne   fyne.App
	client ipc.Client
	root   string
	tray   bool
	win    fyne.Window
	main   *mainView
	keys   modalKeys

	// OpenShell opens a shell of a sandbox in the user's own terminal;
	// tests replace it.
	OpenShell func(name string) error
	// Login is the desktop's "open at login" entry, shown as a switch in
	// Settings; nil hides the switch.
	Login LoginItem
	// OnQuit ends the app: the desktop stops the sandboxes first, then
	// quits Fyne. It runs off the UI goroutine. Nil quits Fyne at once.
	OnQuit func()
	// closeWindow is what closing the window does: hide it in the tray,
	// or quit where there is no tray
	closeWindow func()

	// do runs a change to widgets on the UI goroutine; tests run it in
	// their own, in order with the events they hand the app.
	do func(func())
	// withTimeout bounds a request that answers at once; tests give it a
	// fake clock. Creates and starts never use it: they may wait in the
	// queue for as long as the host is full.
	withTimeout func(context.Context, time.Duration) (context.Context, context.CancelFunc)
	// life ends when the app quits; a start waiting in the queue is called
	// off with it, and with nothing else.
	life    context.Context
	endLife context.CancelFunc

	mu       sync.Mutex
	onState  map[int]func() // called in the event loop after a state change
	hookID   int
	quitting bool

	// defaultsFetches counts the Add dialog's fetches of the defaults, so
	// tests can pin that progress ticks cause none.
	defaultsFetches atomic.Int64
}

// timeout bounds one request from the UI that answers at once.
const timeout = 30 * time.Second

// New builds the app's main window over a controller client. tray says
// whether the desktop has a system tray host to live in; then the tray is
// set up here, before Fyne's loop starts, which is the only time Fyne
// starts one.
func New(a fyne.App, client ipc.Client, root string, tray bool) *App {
	u := &App{fyne: a, client: client, root: root, tray: tray, onState: map[int]func(){},
		withTimeout: context.WithTimeout, do: fyne.Do}
	u.life, u.endLife = context.WithCancel(context.Background())
	u.OpenShell = u.terminalShell
	u.win = a.NewWindow("sandboxdesk")
	u.main = newMainView(u)
	// sized before the content is set, and the content laid out at that
	// size only: Fyne first lays new content out at its minimum size,
	// where every label that wraps or ends in an ellipsis shapes its text
	// again and again, only to lay it all out once more at the window's size
	u.win.Resize(fyne.NewSize(900, 520))
	wrap := container.New(&sizedFirst{}, u.main.content)
	u.win.SetContent(wrap)
	if u.main.content.Size() != wrap.Size() {
		// the window is no larger than the content's minimum, so Fyne
		// did not lay it out again
		wrap.Layout.Layout(wrap.Objects, wrap.Size())
	}
	u.win.Canvas().SetOnTypedKey(u.typedKey)
	u.setupShortcuts()
	u.setupTray()
	return u
}

// Window is the main window.
func (u *App) Window() fyne.Window { return u.win }

// SetStatus shows a line under the list (the desktop says there what it
// waits for); safe from any goroutine.
func (u *App) SetStatus(line string) { u.do(func() { u.main.status.SetText(line) }) }

// Run refreshes the window and follows the controller's events until ctx
// ends, reconnecting when the controller goes away. It blocks; run it on
// its own goroutine.
func (u *App) Run(ctx context.Context) {
	go u.tick(ctx)
	lost := false
	for ctx.Err() == nil {
		events, err := u.client.Subscribe(ctx)
		if err != nil {
			if !lost {
				u.SetStatus(lostLine(u.root))
				lost = true
			}
			sleep(ctx, 2*time.Second)
			continue
		}
		if lost {
			u.SetStatus("")
			lost = false
		}
		// after the subscription, so nothing between the two is missed;
		// again on every resubscription, since a subscriber that fell
		// behind was dropped and missed events
		u.Refresh(ctx)
		for e := range events {
			u.handle(ctx, e)
		}
		// the controller went away or dropped us: subscribe again, and
		// say so only if that fails
	}
}

// lostLine says what happened and what to do while the app reconnects.
func lostLine(root string) string {
	return "Lost the controller of " + root + "; reconnecting. If this stays, quit sandboxdesk and open it again."
}

// tick redraws the list twice a minute so AGE and IDLE move on.
func (u *App) tick(ctx context.Context) {
	t := time.NewTicker(30 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			u.do(u.main.tick)
		}
	}
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// handle reacts to one event: a state change refreshes what depends on
// the sandboxes' states (the list, the header, an open Add dialog's
// defaults); a progress tick only moves the progress bar.
func (u *App) handle(ctx context.Context, e ipc.Event) {
	switch e.Kind {
	case ipc.EventProgress:
		u.do(func() { u.main.progress(e) })
	case ipc.EventState:
		u.Refresh(ctx)
		u.mu.Lock()
		var hooks []func()
		for _, h := range u.onState {
			hooks = append(hooks, h)
		}
		u.mu.Unlock()
		for _, h := range hooks {
			h()
		}
	case ipc.EventNotice:
		u.do(func() { u.main.notice(e) })
	}
}

// onStateChange registers fn for every state change until the returned
// function is called.
func (u *App) onStateChange(fn func()) func() {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.hookID++
	id := u.hookID
	u.onState[id] = fn
	return func() {
		u.mu.Lock()
		defer u.mu.Unlock()
		delete(u.onState, id)
	}
}

// Refresh fetches the sandboxes, limits and defaults and shows them.
func (u *App) Refresh(ctx context.Context) {
	ctx, cancel := u.withTimeout(ctx, timeout)
	defer cancel()
	var list []ipc.Sandbox
	var lim ipc.Limits
	var d ipc.Defaults
	err := u.client.Call(ctx, ipc.ListRequest{}, &list)
	if err == nil {
		err = u.client.Call(ctx, ipc.LimitsRequest{}, &lim)
	}
	if err == nil {
		err = u.client.Call(ctx, ipc.DefaultsRequest{}, &d)
	}
	fyne.DoAndWait(func() {
		if err != nil {
			u.main.status.SetText(failure("Could not read the sandboxes", err).line)
			return
		}
		u.main.show(list, lim, d)
		u.refreshTray(list)
	})
}

// call sends a request that answers at once, showing an error dialog when
// it fails. It runs off the UI goroutine.
func (u *App) call(title string, req ipc.Request, out any) {
	go func() {
		ctx, cancel := u.withTimeout(u.life, timeout)
		defer cancel()
		if err := u.client.Call(ctx, req, out); err != nil {
			u.showRequestError(title, req, err)
		}
	}()
}

// start sends a create or start, which waits in the queue while the host
// runs all it may: no timeout, only the app's end calls it off. then runs
// with the sandbox once it runs.
func (u *App) start(title string, req ipc.CreateRequest, then func(ipc.Sandbox)) {
	go func() {
		var sb ipc.Sandbox
		if err := u.client.Call(u.life, req, &sb); err != nil {
			if u.life.Err() == nil {
				u.showRequestError(title, req, err)
			}
			return
		}
		if then != nil {
			then(sb)
		}
	}()
}

// quit ends the app once: where the window is the app, after the
// desktop stopped the sandboxes, with a line saying so meanwhile.
func (u *App) quit() {
	u.mu.Lock()
	again := u.quitting
	u.quitting = true
	u.mu.Unlock()
	if again {
		return
	}
	u.main.status.SetText("Stopping the sandboxes before quitting…")
	u.endLife()
	if u.OnQuit == nil {
		u.fyne.Quit()
		return
	}
	go u.OnQuit()
}

// sizedFirst lays its content out like a stack, except the first time:
// that pass is Fyne's own at the content's minimum size, undone by the
// next one at the window's.
type sizedFirst struct{ skipped bool }

func (l *sizedFirst) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	if !l.skipped {
		l.skipped = true
		return
	}
	for _, o := range objs {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
}

func (l *sizedFirst) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var s fyne.Size
	for _, o := range objs {
		s = s.Max(o.MinSize())
	}
	return s
}
