package ui

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

// LoginItem is the desktop's own "open at login" entry for the app: an
// XDG autostart file, a LaunchAgent, a Run value (package autostart).
type LoginItem interface {
	Enabled() (bool, error)
	Enable() error
	Disable() error
}

// loginSwitch is Settings' "Open at login" check. It reads the entry when
// the dialog opens and changes it only on Save, like every other setting.
type loginSwitch struct {
	item  LoginItem
	check *widget.Check
	was   bool
	msg   *widget.Label
}

func newLoginSwitch(item LoginItem) *loginSwitch {
	l := &loginSwitch{item: item, check: widget.NewCheck("Open sandboxdesk when I log in", nil), msg: widget.NewLabel("")}
	l.msg.Importance = widget.DangerImportance
	l.msg.Wrapping = fyne.TextWrapWord
	l.msg.Hide()
	on, err := item.Enabled()
	if err != nil {
		// a switch that cannot tell its state would lie either way
		l.check.Disable()
		l.msg.SetText(fmt.Sprintf("Cannot read the login entry: %v", err))
		l.msg.Show()
		return l
	}
	l.was = on
	l.check.SetChecked(on)
	return l
}

func (l *loginSwitch) content() fyne.CanvasObject { return container.NewVBox(l.check, l.msg) }

// apply writes or removes the entry when the check changed. The entry's
// errors say what was done to which file or value; this says why.
func (l *loginSwitch) apply() error {
	if l.check.Disabled() || l.check.Checked == l.was {
		return nil
	}
	if l.check.Checked {
		if err := l.item.Enable(); err != nil {
			return fmt.Errorf("open at login: %w", err)
		}
	} else if err := l.item.Disable(); err != nil {
		return fmt.Errorf("stop opening at login: %w", err)
	}
	l.was = l.check.Checked
	return nil
}
