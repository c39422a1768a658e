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
	dlg                 *dialog.CustomDialog
}

func (u *App) showSettings() {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
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
	count := func() *dialogEntry {
		e := newDialogEntry(hide, s.save)
		e.Validator = func(v string) error {
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err != nil || n < 1 || n > 1000 {
				return errors.New("1 to 1000")
			}
			return nil
		}
		return e
	}
	s.atOnce, s.retained = count(), count()
	s.atOnceMode = modeGroup(s.atOnce, fmt.Sprintf("%s: %d", recommended, lim.Recommended.AtOnce), lim.CustomAtOnce)
	s.retMode = modeGroup(s.retained, fmt.Sprintf("%s: %d", recommended, lim.Recommended.Retained), lim.CustomRetained)
	s.recommendation = widget.NewLabel(fmt.Sprintf("Recommended: %d at once, %d retained.", lim.Recommended.AtOnce, lim.Recommended.Retained))
	s.useRecommended = widget.NewButton("Use recommended", s.fillRecommended)

	s.memory = newDialogEntry(hide, s.save)
	s.memory.SetPlaceHolder(units.FormatMiB(d.MemoryMiB))
	s.memory.Validator = func(v string) error {
		if s.memMode == nil || s.memMode.Selected != always {
			return nil
		}
		size, err := units.ParseSize(v)
		if err != nil {
			return err
		}
		if mib := size.MiB(); mib < r.MemoryMiB.Min || mib > r.MemoryMiB.Max {
			return fmt.Errorf("%s to %s", units.FormatMiB(r.MemoryMiB.Min), units.FormatMiB(r.MemoryMiB.Max))
		}
		return nil
	}
	s.memMode = widget.NewRadioGroup([]string{share, always}, func(v string) {
		if v == always {
			s.memory.Enable()
		} else {
			s.memory.Disable()
		}
		s.memory.Validate()
	})
	s.memMode.Horizontal = true
	s.memMode.SetSelected(share)

	budget := widget.NewLabel(fmt.Sprintf("%s (half of %s)   %s committed",
		units.FormatMiB(d.BudgetMiB), units.Size(c.Host.TotalMemoryBytes), units.FormatMiB(d.CommittedMiB)))
	size := widget.NewLabel(fmt.Sprintf("%d CPUs · %s · %s disk (used for the recommendation)",
		c.Size.CPUs, units.FormatMiB(c.Size.MemoryMiB), units.FormatMiB(c.Size.DiskMiB)))
	form := widget.NewForm(
		widget.NewFormItem("Memory budget", budget),
		widget.NewFormItem("Default memory", container.NewHBox(s.memMode, container.NewGridWrap(fyne.NewSize(120, s.memory.MinSize().Height), s.memory))),
		widget.NewFormItem("Sandboxes at once", container.NewHBox(s.atOnceMode, container.NewGridWrap(fyne.NewSize(80, s.atOnce.MinSize().Height), s.atOnce))),
		widget.NewFormItem("Retained", container.NewHBox(s.retMode, container.NewGridWrap(fyne.NewSize(80, s.retained.MinSize().Height), s.retained))),
		widget.NewFormItem("", container.NewHBox(s.recommendation, s.useRecommended)),
		widget.NewFormItem("Sandbox size", size),
		widget.NewFormItem("Data folder", widget.NewLabel(u.root)),
	)
	cancel := widget.NewButton("Cancel", func() { s.dlg.Hide() })
	save := widget.NewButton("Save", s.save)
	save.Importance = widget.HighImportance
	s.dlg = dialog.NewCustomWithoutButtons("Settings", form, u.win)
	s.dlg.SetButtons([]fyne.CanvasObject{cancel, save})
	return s
}

// modeGroup is a Recommended/Custom choice that enables its entry only
// for Custom.
func modeGroup(entry *dialogEntry, recLabel string, current *int) *widget.RadioGroup {
	g := widget.NewRadioGroup([]string{recLabel, custom}, func(v string) {
		if v == custom {
			entry.Enable()
		} else {
			entry.Disable()
		}
	})
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

// fillRecommended puts the recommendation in the custom fields.
func (s *settingsDialog) fillRecommended() {
	s.atOnceMode.SetSelected(custom)
	s.retMode.SetSelected(custom)
	s.atOnce.SetText(strconv.Itoa(s.lim.Recommended.AtOnce))
	s.retained.SetText(strconv.Itoa(s.lim.Recommended.Retained))
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

func (s *settingsDialog) memoryRequest() (ipc.SetDefaultMemoryRequest, error) {
	if s.memMode.Selected != always {
		return ipc.SetDefaultMemoryRequest{}, nil
	}
	if err := s.memory.Validate(); err != nil {
		return ipc.SetDefaultMemoryRequest{}, err
	}
	size, _ := units.ParseSize(s.memory.Text)
	v := size.MiB()
	return ipc.SetDefaultMemoryRequest{MemoryMiB: &v}, nil
}

func (s *settingsDialog) save() {
	lreq, err := s.limitsRequest()
	if err != nil {
		s.u.showError("Settings", err)
		return
	}
	mreq, err := s.memoryRequest()
	if err != nil {
		s.u.showError("Settings", err)
		return
	}
	s.dlg.Hide()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		if err := s.store(ctx, lreq, mreq); err != nil {
			s.u.showError("Save settings", err)
			return
		}
		s.u.Refresh(ctx)
	}()
}

// store sends the settings to the controller.
func (s *settingsDialog) store(ctx context.Context, lreq ipc.SetLimitsRequest, mreq ipc.SetDefaultMemoryRequest) error {
	var lim ipc.Limits
	var d ipc.Defaults
	if err := s.u.client.Call(ctx, lreq, &lim); err != nil {
		return err
	}
	return s.u.client.Call(ctx, mreq, &d)
}
