package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"

	"sandboxdesk/assets"
	"sandboxdesk/ipc"
)

// QuickStartName is the sandbox the tray's Quick start makes or starts.
const QuickStartName = "default"

// setupTray puts the app in the system tray where the desktop has a tray
// host; then closing the window keeps the app running there. Fyne starts
// its tray only when the menu is set before its loop runs, so the first
// menu is set here, from New. Without a tray the window is the app:
// closing it quits, after the sandboxes stop.
func (u *App) setupTray() {
	d, ok := u.fyne.(desktop.App)
	if !ok || !u.tray {
		u.tray = false
		u.closeWindow = u.quit
		u.win.SetCloseIntercept(u.closeWindow)
		return
	}
	d.SetSystemTrayIcon(assets.TrayIcon)
	d.SetSystemTrayMenu(u.trayMenu(nil))
	u.closeWindow = u.win.Hide
	u.win.SetCloseIntercept(u.closeWindow)
}

// refreshTray rebuilds the tray menu from the sandboxes; UI goroutine.
func (u *App) refreshTray(list []ipc.Sandbox) {
	if d, ok := u.fyne.(desktop.App); ok && u.tray {
		d.SetSystemTrayMenu(u.trayMenu(list))
	}
}

// trayMenu is Quick start, each sandbox with what it can do now, Open
// sandboxdesk and Quit.
func (u *App) trayMenu(list []ipc.Sandbox) *fyne.Menu {
	items := []*fyne.MenuItem{
		fyne.NewMenuItem("Quick start ("+QuickStartName+")", u.quickStart),
		fyne.NewMenuItemSeparator(),
	}
	for _, sb := range list {
		item := fyne.NewMenuItem(shorten(sb.Name, 32)+"   "+stateText(sb), nil)
		item.ChildMenu = fyne.NewMenu("", u.sandboxActions(sb)...)
		items = append(items, item)
	}
	if len(list) > 0 {
		items = append(items, fyne.NewMenuItemSeparator())
	}
	items = append(items,
		fyne.NewMenuItem("Open sandboxdesk", func() { u.win.Show(); u.win.RequestFocus() }),
		fyne.NewMenuItem("Quit", u.quit),
	)
	items[len(items)-1].IsQuit = true
	return fyne.NewMenu("sandboxdesk", items...)
}

// sandboxActions are what a sandbox can do in its state: a running one
// opens a shell or stops, a queued one can be called off, a stopped or
// broken one starts.
func (u *App) sandboxActions(sb ipc.Sandbox) []*fyne.MenuItem {
	name := sb.Name
	stop := fyne.NewMenuItem("Stop", func() { u.call("Stop "+name, ipc.StopRequest{Ref: ipc.Ref{Name: name}}, &ipc.Sandbox{}) })
	switch {
	case sb.State == ipc.StateRunning:
		return []*fyne.MenuItem{fyne.NewMenuItem("Open shell", func() { u.openShell(name) }), stop}
	case sb.State == ipc.StateQueued:
		return []*fyne.MenuItem{stop}
	case startable(sb.State):
		return []*fyne.MenuItem{fyne.NewMenuItem("Start", func() { u.start("Start "+name, ipc.CreateRequest{Name: name}, nil) })}
	}
	return nil
}

// startable: a start makes sense from these states; a queued sandbox is
// already waiting to start.
func startable(s ipc.State) bool {
	return s == ipc.StateStopped || s == ipc.StateSuspended || s == ipc.StateBroken
}

// quickStart creates or starts the default sandbox with the default shape
// and opens its shell once it runs, however long it waits in the queue.
func (u *App) quickStart() {
	u.start("Quick start", ipc.CreateRequest{Name: QuickStartName}, func(sb ipc.Sandbox) { u.openShell(sb.Name) })
}

// shorten cuts a name to n characters with an ellipsis: a tray menu is
// as wide as its longest line.
func shorten(name string, n int) string {
	r := []rune(name)
	if len(r) <= n {
		return name
	}
	return string(r[:n-1]) + "…"
}
