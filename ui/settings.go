package ui

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"sandboxdesk/ipc"
	"sandboxdesk/units"
)

const (
	recommended = "Recommended"
	custom      = "Custom"
	share       = "Share the budget"
	always      = "Always"
)

// settingsDialog shows the memory budget and edits the capacity limits
// (Recommended, which stores nothing, or Custom) and the default memory.
type settingsDialog struct {
	u                   *App
	lim                 ipc.Limits
	atOnceMode, retMode *widget.RadioGroup
	atOnce, retained    *dialogEntry
	memMode             *widget.RadioGroup
	memory              *dialogEntry
	recommendation      *widget.Label
	useRecommended      *widget.Button
	saveButton          *widget.Button
	dlg                 *keyedDialog
	// memTouched: the user changed the default memory, so Save sends it;
	// an untouched one, stored or not, is left as it is
	memTouched bool
	checks     []func() bool // each field's inline check; true when valid
	login      *loginSwitch  // nil where the app has no login entry
}

func (u *App) showSettings() {
	if u.modal() {
		return
	}
	ctx, cancel := u.withTimeout(context.Background(), timeout)
	defer cancel()
	var lim ipc.Limits
	var d ipc.Defaults
	var c ipc.Capacity
	var r ipc.Ranges
	err := u.client.Call(ctx, ipc.LimitsRequest{}, &lim)
	if err == nil {
		err = u.client.Call(ctx, ipc.DefaultsRequest{}, &d)
	}
	if err == nil {
		err = u.client.Call(ctx, ipc.CapacityRequest{}, &c)
	}
	if err == nil {
		err = u.client.Call(ctx, ipc.RangesRequest{}, &r)
	}
	if err != nil {
		u.showError("Settings", err)
		return
	}
	newSettingsDialog(u, lim, d, c, r).dlg.Show()
}

func newSettingsDialog(u *App, lim ipc.Limits, d ipc.Defaults, c ipc.Capacity, r ipc.Ranges) *settingsDialog {
	s := &settingsDialog{u: u, lim: lim}
	hide := func() { s.dlg.Hide() }
	s.atOnce, s.retained = newDialogEntry(hide, s.save), newDialogEntry(hide, s.save)
	s.atOnceMode = modeGroup(s.atOnce, fmt.Sprintf("%s: %d", recommended, lim.Recommended.AtOnce), lim.CustomAtOnce)
	s.retMode = modeGroup(s.retained, fmt.Sprintf("%s: %d", recommended, lim.Recommended.Retained), lim.CustomRetained)
	s.recommendation = widget.NewLabel(fmt.Sprintf("Recommended: %d at once, %d retained.", lim.Recommended.AtOnce, lim.Recommended.Retained))
	s.useRecommended = widget.NewButton("Use recommended", s.fillRecommended)

	s.memory = newDialogEntry(hide, s.save)
	s.memory.SetPlaceHolder(units.FormatMiB(d.MemoryMiB))
	s.memMode = widget.NewRadioGroup([]string{share, always}, nil)
	s.memMode.Horizontal = true
	s.memMode.Required = true
	if d.StoredMemoryMiB > 0 {
		s.memory.SetText(units.FormatMiB(d.StoredMemoryMiB))
		s.memMode.SetSelected(always)
	} else {
		s.memMode.SetSelected(share)
	}
	memCheck := func(v string) error {
		size, err := units.ParseSize(v)
		if err != nil {
			return err
		}
		if mib := size.MiB(); mib < r.MemoryMiB.Min || mib > r.MemoryMiB.Max {
			return fmt.Errorf("%s to %s", units.FormatMiB(r.MemoryMiB.Min), units.FormatMiB(r.MemoryMiB.Max))
		}
		return nil
	}
	countCheck := func(v string) error {
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err != nil || n < 1 || n > 1000 {
			return errors.New("a whole number, 1 to 1000")
		}
		return nil
	}

	budget := widget.NewLabel(fmt.Sprintf("%s (half of %s)   %s committed",
		units.FormatMiB(d.BudgetMiB), units.Size(c.Host.TotalMemoryBytes), units.FormatMiB(d.CommittedMiB)))
	size := widget.NewLabel(fmt.Sprintf("%d CPUs · %s · %s disk (used for the recommendation)",
		c.Size.CPUs, units.FormatMiB(c.Size.MemoryMiB), units.FormatMiB(c.Size.DiskMiB)))
	form := widget.NewForm(
		widget.NewFormItem("Memory budget", budget),
		widget.NewFormItem("Default memory", s.field("Default memory", s.memMode, always, s.memory, 120, memCheck)),
		widget.NewFormItem("Sandboxes at once", s.field("Sandboxes at once", s.atOnceMode, custom, s.atOnce, 80, countCheck)),
		widget.NewFormItem("Retained", s.field("Retained", s.retMode, custom, s.retained, 80, countCheck)),
		widget.NewFormItem("", container.NewHBox(s.recommendation, s.useRecommended)),
		widget.NewFormItem("Sandbox size", size),
		widget.NewFormItem("Data folder", widget.NewLabel(u.root)),
	)
	if u.Login != nil {
		s.login = newLoginSwitch(u.Login)
		form.Append("Open at login", s.login.content())
	}
	form.Append("About", about())
	s.memory.OnChanged = func(string) { s.memTouched = true; s.recheck() }
	memOnChanged := s.memMode.OnChanged
	s.memMode.OnChanged = func(v string) { s.memTouched = true; memOnChanged(v) }
	cancel := widget.NewButton("Cancel", hide)
	s.saveButton = widget.NewButton("Save", s.save)
	s.saveButton.Importance = widget.HighImportance
	dlg := dialog.NewCustomWithoutButtons("Settings", scrolled(form, u.win, form.MinSize().Width, 0), u.win)
	dlg.SetButtons([]fyne.CanvasObject{cancel, s.saveButton})
	s.dlg = u.keyed(dlg, nil)
	s.dlg.onReturn, s.dlg.onEscape = s.save, hide
	s.recheck()
	return s
}

// field is a mode choice, its entry (enabled only in the mode that uses
// it) and a line under them that names the field and its range while
// the entry's value is wrong.
func (s *settingsDialog) field(name string, mode *widget.RadioGroup, editing string, e *dialogEntry, width float32, check func(string) error) fyne.CanvasObject {
	msg := widget.NewLabel("")
	msg.Importance = widget.DangerImportance
	msg.Wrapping = fyne.TextWrapWord
	msg.Hide()
	valid := func() bool {
		var err error
		if mode.Selected == editing {
			err = check(e.Text)
		}
		if err != nil {
			msg.SetText(name + ": " + err.Error())
			msg.Show()
			return false
		}
		msg.Hide()
		return true
	}
	s.checks = append(s.checks, valid)
	e.Validator = func(v string) error {
		if mode.Selected != editing {
			return nil
		}
		return check(v)
	}
	follow := func(v string) {
		if v == editing {
			e.Enable()
		} else {
			e.Disable()
		}
		s.recheck()
	}
	mode.OnChanged = follow
	follow(mode.Selected)
	if e.OnChanged == nil {
		e.OnChanged = func(string) { s.recheck() }
	}
	return container.NewVBox(container.NewHBox(mode, container.NewGridWrap(fyne.NewSize(width, e.MinSize().Height), e)), msg)
}

// recheck shows each field's message and allows Save only when all hold.
func (s *settingsDialog) recheck() bool {
	ok := true
	for _, c := range s.checks {
		ok = c() && ok
	}
	if s.saveButton != nil {
		if ok {
			s.saveButton.Enable()
		} else {
			s.saveButton.Disable()
		}
	}
	return ok
}

// modeGroup is a Recommended/Custom choice for a limit, Custom with the
// stored value when there is one.
func modeGroup(entry *dialogEntry, recLabel string, current *int) *widget.RadioGroup {
	g := widget.NewRadioGroup([]string{recLabel, custom}, nil)
	g.Horizontal = true
	g.Required = true
	if current != nil {
		entry.SetText(strconv.Itoa(*current))
		g.SetSelected(custom)
	} else {
		g.SetSelected(recLabel)
	}
	return g
}

// fillRecommended returns both limits to Recommended: Save then stores
// nothing, and the limits follow the host as it changes.
func (s *settingsDialog) fillRecommended() {
	s.atOnceMode.SetSelected(s.atOnceMode.Options[0])
	s.retMode.SetSelected(s.retMode.Options[0])
}

// limitsRequest is what Save sends: nothing for a limit left Recommended.
func (s *settingsDialog) limitsRequest() (ipc.SetLimitsRequest, error) {
	var req ipc.SetLimitsRequest
	for _, f := range []struct {
		mode  *widget.RadioGroup
		entry *widget.Entry
		dst   **int
	}{{s.atOnceMode, &s.atOnce.Entry, &req.AtOnce}, {s.retMode, &s.retained.Entry, &req.Retained}} {
		if f.mode.Selected != custom {
			continue
		}
		if err := f.entry.Validate(); err != nil {
			return req, err
		}
		n, _ := strconv.Atoi(strings.TrimSpace(f.entry.Text))
		*f.dst = &n
	}
	return req, nil
}

// memoryRequest is the default memory to store, and whether to send it
// at all: only when the user changed it.
func (s *settingsDialog) memoryRequest() (ipc.SetDefaultMemoryRequest, bool, error) {
	if !s.memTouched {
		return ipc.SetDefaultMemoryRequest{}, false, nil
	}
	if s.memMode.Selected != always {
		return ipc.SetDefaultMemoryRequest{}, true, nil
	}
	if err := s.memory.Validate(); err != nil {
		return ipc.SetDefaultMemoryRequest{}, false, err
	}
	size, _ := units.ParseSize(s.memory.Text)
	v := size.MiB()
	return ipc.SetDefaultMemoryRequest{MemoryMiB: &v}, true, nil
}

// save stores what the dialog holds; a field still wrong keeps the dialog
// open with its message showing.
func (s *settingsDialog) save() {
	if !s.recheck() {
		return
	}
	lreq, err := s.limitsRequest()
	if err != nil {
		return
	}
	mreq, sendMem, err := s.memoryRequest()
	if err != nil {
		return
	}
	s.dlg.Hide()
	go func() {
		ctx, cancel := s.u.withTimeout(context.Background(), timeout)
		defer cancel()
		if err := s.store(ctx, lreq, mreq, sendMem); err != nil {
			s.u.showError("Save settings", err)
			return
		}
		s.u.Refresh(ctx)
	}()
}

// store writes the login entry and sends the settings to the controller.
func (s *settingsDialog) store(ctx context.Context, lreq ipc.SetLimitsRequest, mreq ipc.SetDefaultMemoryRequest, sendMem bool) error {
	if s.login != nil {
		if err := s.login.apply(); err != nil {
			return err
		}
	}
	var lim ipc.Limits
	if err := s.u.client.Call(ctx, lreq, &lim); err != nil {
		return err
	}
	if !sendMem {
		return nil
	}
	var d ipc.Defaults
	return s.u.client.Call(ctx, mreq, &d)
}
