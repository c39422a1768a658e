package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/widget"

	"sandboxdesk/assets"
	"sandboxdesk/controller"
	"sandboxdesk/daemon"
	"sandboxdesk/ipc"
	"sandboxdesk/ui"
)

// appID identifies the app to the desktop (preferences, notifications).
const appID = "dev.sandboxdesk.app"

// runDesktop is the app: the controller of the root, its socket for the
// CLI, and the window, until the window is closed or a client asks the
// controller to quit.
func runDesktop(rootFlag string) int {
	root, err := controller.ResolveRoot(rootFlag)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sandboxdesk:", err)
		return 1
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	a := app.NewWithID(appID)
	a.SetIcon(assets.Icon)
	client, served, err := connect(ctx, root, log)
	if err != nil {
		w := a.NewWindow("sandboxdesk")
		w.SetContent(widget.NewLabel("sandboxdesk cannot run sandboxes here: " + err.Error()))
		w.Resize(fyne.NewSize(640, 120))
		w.ShowAndRun()
		return 1
	}
	u := ui.New(a, client, root, hasTray())
	go u.Run(ctx)
	if served != nil {
		// `sandboxdesk quit` signals a controller that holds the root but
		// does not answer on its socket: stop as Quit in the tray does
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, syscall.SIGTERM, os.Interrupt)
		defer signal.Stop(sigs)
		go func() {
			if _, ok := <-sigs; ok {
				defer func() { recover() }()
				fyne.Do(a.Quit)
			}
		}()
		go func() {
			<-served // a client asked the controller to quit
			// the window may be closing by itself at the same moment;
			// Fyne panics when asked to quit a window it already tore down
			defer func() { recover() }()
			fyne.Do(a.Quit)
		}()
	}
	showAndRun(u.Window(), log)
	cancel()
	if served != nil {
		<-served // the controller stops its sandboxes before the app exits
	}
	return 0
}

// connect makes this process the root's controller, serving the CLI on
// its socket, and returns the in-process client the UI uses. When another
// process (a `sandboxdesk serve`) already owns the root, the UI uses its
// socket instead.
func connect(ctx context.Context, root string, log *slog.Logger) (ipc.Client, <-chan struct{}, error) {
	c, err := daemon.Open(ctx, root, log)
	if errors.Is(err, ipc.ErrConflict) {
		return &ipc.SocketClient{Path: ipc.SocketPath(root)}, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	served := make(chan struct{})
	go func() {
		defer close(served)
		if err := daemon.Serve(ctx, c, log); err != nil {
			log.Error("serve", "err", err)
		}
	}()
	return ipc.NewLocal(ctx, &controller.Service{C: c}), served, nil
}

// showAndRun runs the window until the app quits. A failure in Fyne's
// teardown (its tray panics at exit when it never reached D-Bus) must not
// skip the graceful stop of the sandboxes that follows.
func showAndRun(w fyne.Window, log *slog.Logger) {
	defer func() {
		if r := recover(); r != nil {
			log.Error("the window's teardown failed", "panic", r)
		}
	}()
	w.ShowAndRun()
}

// hasTray: macOS and Windows always have one; a Linux desktop has a
// StatusNotifier host only in a D-Bus session.
func hasTray() bool {
	if runtime.GOOS != "linux" {
		return true
	}
	return os.Getenv("DBUS_SESSION_BUS_ADDRESS") != ""
}
