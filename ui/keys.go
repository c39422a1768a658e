package ui

import (
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
)

// keyedDialog is a dialog that owns the keyboard while it shows: Return
// and Escape act on it, and no key reaches the main window behind it.
type keyedDialog struct {
	dialog.Dialog
	u                  *App
	onReturn, onEscape func()
}

// modalKeys are the dialogs showing, the top last. UI goroutine only.
type modalKeys struct{ open []*keyedDialog }

// keyed wraps d so that, while it shows, the window's keys go to it.
// onClosed, when set, runs after it closes.
func (u *App) keyed(d dialog.Dialog, onClosed func()) *keyedDialog {
	k := &keyedDialog{Dialog: d, u: u}
	d.SetOnClosed(func() {
		u.keys.open = slices.DeleteFunc(u.keys.open, func(o *keyedDialog) bool { return o == k })
		if onClosed != nil {
			onClosed()
		}
	})
	return k
}

// Show shows the dialog and gives it the keyboard.
func (k *keyedDialog) Show() {
	if !slices.Contains(k.u.keys.open, k) {
		k.u.keys.open = append(k.u.keys.open, k)
	}
	k.Dialog.Show()
}

// typedKey is every key no widget has focus for. A dialog showing takes
// it; else the main window's list does.
func (u *App) typedKey(k *fyne.KeyEvent) {
	if n := len(u.keys.open); n > 0 {
		top := u.keys.open[n-1]
		switch k.Name {
		case fyne.KeyReturn, fyne.KeyEnter:
			if top.onReturn != nil {
				top.onReturn()
			}
		case fyne.KeyEscape:
			if top.onEscape != nil {
				top.onEscape()
			}
		}
		return // Delete and the rest mean nothing to a dialog
	}
	if u.win.Canvas().Overlays().Top() != nil {
		return // a pop-up of Fyne's own (a menu, a select's list)
	}
	u.main.typedKey(k)
}

// modal reports whether a dialog is showing; shortcuts that open another
// then do nothing.
func (u *App) modal() bool { return len(u.keys.open) > 0 }

// setupShortcuts: Ctrl+N adds a sandbox, Ctrl+, opens Settings, Ctrl+Q
// quits; the window's File menu lists them.
func (u *App) setupShortcuts() {
	add := &desktop.CustomShortcut{KeyName: fyne.KeyN, Modifier: fyne.KeyModifierShortcutDefault}
	settings := &desktop.CustomShortcut{KeyName: fyne.KeyComma, Modifier: fyne.KeyModifierShortcutDefault}
	quit := &desktop.CustomShortcut{KeyName: fyne.KeyQ, Modifier: fyne.KeyModifierShortcutDefault}
	c := u.win.Canvas()
	c.AddShortcut(add, func(fyne.Shortcut) { u.showAdd() })
	c.AddShortcut(settings, func(fyne.Shortcut) { u.showSettings() })
	c.AddShortcut(quit, func(fyne.Shortcut) { u.quit() })
	addItem := fyne.NewMenuItem("Add sandbox…", u.showAdd)
	addItem.Shortcut = add
	settingsItem := fyne.NewMenuItem("Settings…", u.showSettings)
	settingsItem.Shortcut = settings
	quitItem := fyne.NewMenuItem("Quit", u.quit)
	quitItem.Shortcut = quit
	quitItem.IsQuit = true
	u.win.SetMainMenu(fyne.NewMainMenu(fyne.NewMenu("File", addItem, settingsItem, fyne.NewMenuItemSeparator(), quitItem)))
}

// scrolled puts a dialog's content in a scroll as tall as the content
// needs (plus slack for lines that wrap), up to what the window leaves
// beside the dialog's title and buttons: with many errors showing the
// form scrolls, and the buttons stay on screen.
func scrolled(content fyne.CanvasObject, win fyne.Window, width, slack float32) *container.Scroll {
	s := container.NewVScroll(content)
	room := win.Canvas().Size().Height - 150
	s.SetMinSize(fyne.NewSize(width, max(min(content.MinSize().Height+slack, room), 100)))
	return s
}
