package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// dialogEntry is an entry in a dialog: Escape in it closes the dialog (an
// entry would otherwise swallow the key), Enter submits it.
type dialogEntry struct {
	widget.Entry
	onEscape func()
}

func newDialogEntry(onEscape, onEnter func()) *dialogEntry {
	e := &dialogEntry{onEscape: onEscape}
	e.ExtendBaseWidget(e)
	e.OnSubmitted = func(string) { onEnter() }
	return e
}

// TypedKey closes the dialog on Escape and leaves every other key to the
// entry.
func (e *dialogEntry) TypedKey(k *fyne.KeyEvent) {
	if k.Name == fyne.KeyEscape && e.onEscape != nil {
		e.onEscape()
		return
	}
	e.Entry.TypedKey(k)
}
