package ui

import (
	"context"
	"fmt"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

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

	// OpenShell opens a shell of a sandbox in the user's own terminal;
	// tests replace it.
	OpenShell func(name string) error

	mu      sync.Mutex
	onState map[int]func() // called in the event loop after a state change
	hookID  int

	// defaultsFetches counts the Add dialog's fetches of the defaults, so
	// tests can pin that progress ticks cause none.
	defaultsFetches atomic.Int64
}

// timeout bounds one request from the UI to the controller.
const timeout = 30 * time.Second

// New builds the app's main window over a controller client. tray says
// whether the desktop has a system tray to live in.
func New(a fyne.App, client ipc.Client, root string, tray bool) *App {
	u := &App{fyne: a, client: client, root: root, tray: tray, onState: map[int]func(){}}
	u.OpenShell = u.terminalShell
	u.win = a.NewWindow("sandboxdesk")
	u.main = newMainView(u)
	u.win.SetContent(u.main.content)
	u.win.Resize(fyne.NewSize(900, 520))
	u.win.Canvas().SetOnTypedKey(u.main.typedKey)
	u.setupShortcuts()
	u.setupTray()
	return u
}

// Window is the main window.
func (u *App) Window() fyne.Window { return u.win }

// Run refreshes the window and follows the controller's events until ctx
// ends. It blocks; run it on its own goroutine.
func (u *App) Run(ctx context.Context) {
	for {
		events, err := u.client.Subscribe(ctx)
		if err != nil {
			u.showError("Lost the controller", err)
			return
		}
		// after the subscription, so nothing between the two is missed;
		// again on every resubscription, since a subscriber that fell
		// behind was dropped and missed events
		u.Refresh(ctx)
		for e := range events {
			u.handle(ctx, e)
		}
		if ctx.Err() != nil {
			return
		}
		time.Sleep(time.Second) // the controller went away or dropped us: try again
	}
}

// handle reacts to one event: a state change refreshes what depends on
// the sandboxes' states (the list, the header, an open Add dialog's
// defaults); a progress tick only moves the progress bar.
func (u *App) handle(ctx context.Context, e ipc.Event) {
	switch e.Kind {
	case ipc.EventProgress:
		fyne.Do(func() { u.main.progress(e) })
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
		fyne.Do(func() { u.main.notice(e) })
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
	ctx, cancel := context.WithTimeout(ctx, timeout)
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
			u.main.status.SetText("Could not reach the controller: " + err.Error())
			return
		}
		u.main.show(list, lim, d)
		u.refreshTray(list)
	})
}

// call sends a request, showing an error dialog when it fails. It runs
// off the UI goroutine.
func (u *App) call(title string, req ipc.Request, out any) {
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		if err := u.client.Call(ctx, req, out); err != nil {
			u.showError(title, err)
		}
	}()
}

// showError shows the one-line message first, details folded below.
func (u *App) showError(title string, err error) {
	fyne.Do(func() { errorDialog(title, err, u.win).Show() })
}

// errorDialog is the message as one line, and the details (the whole
// error, with when it happened) behind a "Details" fold.
func errorDialog(title string, err error, win fyne.Window) dialog.Dialog {
	msg := err.Error()
	line, _, _ := strings.Cut(msg, "\n")
	head := widget.NewLabel(line)
	head.Wrapping = fyne.TextWrapWord
	details := widget.NewLabel(fmt.Sprintf("%s\n\n%s\nat %s", title, msg, time.Now().Format(time.DateTime)))
	details.Wrapping = fyne.TextWrapWord
	body := container.NewVBox(head, widget.NewAccordion(widget.NewAccordionItem("Details", details)))
	d := dialog.NewCustom(title, "Close", body, win)
	d.Resize(fyne.NewSize(480, 0))
	return d
}

// terminalShell opens `sandboxdesk shell NAME` in the user's terminal.
func (u *App) terminalShell(name string) error {
	exe := "sandboxdesk"
	if p, err := executable(); err == nil {
		exe = p
	}
	args := []string{exe, "shell", name, "--root", u.root}
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		script := fmt.Sprintf(`tell application "Terminal" to do script %q`, shellQuote(args))
		cmd = exec.Command("osascript", "-e", script)
	case "windows":
		cmd = exec.Command("cmd", append([]string{"/c", "start", "sandboxdesk shell"}, args...)...)
	default:
		cmd = exec.Command("x-terminal-emulator", append([]string{"-e"}, args...)...)
		if _, err := exec.LookPath("x-terminal-emulator"); err != nil {
			cmd = exec.Command("xterm", append([]string{"-e"}, args...)...)
		}
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("no terminal to open (%v); run: %s", err, shellQuote(args))
	}
	go cmd.Wait()
	return nil
}
