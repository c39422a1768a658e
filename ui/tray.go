package ui

import (
	"context"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"

	"sandboxdesk/ipc"
)

// QuickStartName is the sandbox the tray's Quick start makes or starts.
const QuickStartName = "default"

// setupTray puts the app in the system tray where the platform has one;
// then closing the window keeps the app running there. Without a tray
// (a Linux desktop without a StatusNotifier host) the window is the app.
func (u *App) setupTray() {
	if _, ok := u.fyne.(desktop.App); !ok || !u.tray {
		u.tray = false
		return
	}
	u.win.SetCloseIntercept(u.win.Hide)
}

// refreshTray rebuilds the tray menu from the sandboxes.
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
		name := sb.Name
		item := fyne.NewMenuItem(name+"   "+stateText(sb), nil)
		var sub []*fyne.MenuItem
		if sb.State == ipc.StateRunning {
			sub = append(sub,
				fyne.NewMenuItem("Open shell", func() {
					if err := u.OpenShell(name); err != nil {
						u.showError("Open a shell", err)
					}
				}),
				fyne.NewMenuItem("Stop", func() { u.call("Stop "+name, ipc.StopRequest{Ref: ipc.Ref{Name: name}}, &ipc.Sandbox{}) }))
		} else if !sb.State.Active() {
			sub = append(sub, fyne.NewMenuItem("Start", func() { u.call("Start "+name, ipc.CreateRequest{Name: name}, &ipc.Sandbox{}) }))
		}
		item.ChildMenu = fyne.NewMenu("", sub...)
		items = append(items, item)
	}
	items = append(items,
		fyne.NewMenuItemSeparator(),
		fyne.NewMenuItem("Open sandboxdesk", func() { u.win.Show(); u.win.RequestFocus() }),
		fyne.NewMenuItem("Quit", u.fyne.Quit),
	)
	return fyne.NewMenu("sandboxdesk", items...)
}

// quickStart creates or starts the default sandbox with the default shape
// and opens its shell.
func (u *App) quickStart() {
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		var sb ipc.Sandbox
		if err := u.client.Call(ctx, ipc.CreateRequest{Name: QuickStartName}, &sb); err != nil {
			u.showError("Quick start", err)
			return
		}
		if err := u.OpenShell(sb.Name); err != nil {
			u.showError("Open a shell", err)
		}
	}()
}

// setupShortcuts: Ctrl+N adds a sandbox, Ctrl+, opens Settings.
func (u *App) setupShortcuts() {
	c := u.win.Canvas()
	c.AddShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyN, Modifier: fyne.KeyModifierShortcutDefault}, func(fyne.Shortcut) { u.showAdd() })
	c.AddShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyComma, Modifier: fyne.KeyModifierShortcutDefault}, func(fyne.Shortcut) { u.showSettings() })
}
