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

// addDialog is the Add Sandbox dialog. Its placeholders are the
// controller's live defaults, fetched over ipc, and fetched again whenever
// a sandbox's runtime state changes; it never keeps a default of its own.
type addDialog struct {
	u      *App
	ranges ipc.Ranges
	form   *widget.Form
	name   *dialogEntry
	image  *widget.Select
	memory *dialogEntry
	cpus   *dialogEntry
	disk   *dialogEntry
	idle   *dialogEntry
	life   *dialogEntry
	hint   *widget.Label
	create *widget.Button
	dlg    *dialog.CustomDialog
	stop   func()
}

func (u *App) showAdd() {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var r ipc.Ranges
	if err := u.client.Call(ctx, ipc.RangesRequest{}, &r); err != nil {
		u.showError("Add sandbox", err)
		return
	}
	a := newAddDialog(u, r)
	a.dlg.Show()
	u.win.Canvas().Focus(a.name)
	go a.refetch()
}

func newAddDialog(u *App, r ipc.Ranges) *addDialog {
	a := &addDialog{u: u, ranges: r}
	entry := func() *dialogEntry { return newDialogEntry(a.close, a.submit) }
	a.name = entry()
	a.name.SetPlaceHolder("agent-1")
	a.name.Validator = validName
	a.image = widget.NewSelect(r.Images, nil)
	if len(r.Images) > 0 {
		a.image.SetSelected(r.Images[0])
	}
	kind := "for host processes"
	if r.VM {
		kind = "for a VM"
	}
	a.memory, a.disk, a.cpus, a.idle, a.life = entry(), entry(), entry(), entry(), entry()
	a.memory.Validator = sizeValidator(r.MemoryMiB, kind)
	a.disk.Validator = sizeValidator(r.DiskMiB, "")
	a.cpus.Validator = func(s string) error {
		if strings.TrimSpace(s) == "" {
			return nil
		}
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || int64(n) < r.CPUs.Min || int64(n) > r.CPUs.Max {
			return fmt.Errorf("%d to %d CPUs", r.CPUs.Min, r.CPUs.Max)
		}
		return nil
	}
	a.idle.Validator, a.life.Validator = validDuration, validDuration
	a.idle.SetPlaceHolder("none")
	a.life.SetPlaceHolder("none")
	a.hint = widget.NewLabel("")
	a.hint.Wrapping = fyne.TextWrapWord
	memItem := widget.NewFormItem("Memory", a.memory)
	memItem.HintText = "empty: the default at start"
	a.form = widget.NewForm(
		widget.NewFormItem("Name", a.name),
		widget.NewFormItem("Image", a.image),
		memItem,
		widget.NewFormItem("CPUs", a.cpus),
		widget.NewFormItem("Disk", a.disk),
		widget.NewFormItem("Idle timeout", a.idle),
		widget.NewFormItem("Max lifetime", a.life),
	)
	cancel := widget.NewButton("Cancel", a.close)
	a.create = widget.NewButton("Create", a.submit)
	a.create.Importance = widget.HighImportance
	a.create.Disable() // a name is needed first
	a.form.SetOnValidationChanged(func(err error) {
		if err != nil {
			a.create.Disable()
		} else {
			a.create.Enable()
		}
	})
	content := container.NewVBox(a.form, a.hint)
	a.dlg = dialog.NewCustomWithoutButtons("Add sandbox", content, u.win)
	a.dlg.SetButtons([]fyne.CanvasObject{cancel, a.create})
	a.dlg.Resize(fyne.NewSize(520, 0))
	// refetched in the event loop's goroutine, in order with the events
	a.stop = u.onStateChange(a.refetch)
	a.dlg.SetOnClosed(a.stop)
	return a
}

// refetch asks the controller what a sandbox added now would get and puts
// it in the placeholders. Off the UI goroutine.
func (a *addDialog) refetch() {
	a.u.defaultsFetches.Add(1)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var d ipc.Defaults
	if err := a.u.client.Call(ctx, ipc.DefaultsRequest{}, &d); err != nil {
		fyne.Do(func() { a.hint.SetText("Defaults unavailable: " + err.Error()) })
		return
	}
	fyne.DoAndWait(func() { a.showDefaults(d) })
}

func (a *addDialog) showDefaults(d ipc.Defaults) {
	a.memory.SetPlaceHolder(units.FormatMiB(d.MemoryMiB))
	a.cpus.SetPlaceHolder(strconv.Itoa(d.CPUs))
	a.disk.SetPlaceHolder(units.FormatMiB(d.DiskMiB))
	beside := "Alone on this host"
	switch d.Active {
	case 0:
	case 1:
		beside = "Beside 1 running sandbox"
	default:
		beside = fmt.Sprintf("Beside %d running sandboxes", d.Active)
	}
	a.hint.SetText(fmt.Sprintf("%s this one would get %s (budget %s, %s committed).",
		beside, units.FormatMiB(d.MemoryMiB), units.FormatMiB(d.BudgetMiB), units.FormatMiB(d.CommittedMiB)))
}

// request turns the fields into a create request; empty means the default
// at start.
func (a *addDialog) request() (ipc.CreateRequest, error) {
	if err := a.form.Validate(); err != nil {
		return ipc.CreateRequest{}, err
	}
	req := ipc.CreateRequest{Name: strings.TrimSpace(a.name.Text), Image: a.image.Selected}
	if v, ok := sizeOf(a.memory.Text); ok {
		req.MemoryMiB = &v
	}
	if v, ok := sizeOf(a.disk.Text); ok {
		req.DiskMiB = &v
	}
	if s := strings.TrimSpace(a.cpus.Text); s != "" {
		n, _ := strconv.Atoi(s)
		req.CPUs = &n
	}
	req.IdleTimeoutMs, req.MaxLifetimeMs = durationOf(a.idle.Text), durationOf(a.life.Text)
	return req, nil
}

func (a *addDialog) submit() {
	req, err := a.request()
	if err != nil || a.create.Disabled() {
		return
	}
	a.close()
	var sb ipc.Sandbox
	a.u.call("Create "+req.Name, req, &sb)
}

func (a *addDialog) close() {
	a.stop()
	a.dlg.Hide()
}

// sizeValidator checks a size field against a range, with the range in
// its message.
func sizeValidator(r ipc.Range, kind string) func(string) error {
	return func(s string) error {
		if strings.TrimSpace(s) == "" {
			return nil
		}
		size, err := units.ParseSize(s)
		if err != nil {
			return err
		}
		if mib := size.MiB(); mib < r.Min || mib > r.Max {
			return errors.New(strings.TrimSpace(fmt.Sprintf("%s to %s %s", units.FormatMiB(r.Min), units.FormatMiB(r.Max), kind)))
		}
		return nil
	}
}

func validDuration(s string) error {
	s = strings.TrimSpace(s)
	if s == "" || s == "none" {
		return nil
	}
	_, err := units.ParseDuration(s)
	return err
}

func sizeOf(s string) (int64, bool) {
	if strings.TrimSpace(s) == "" {
		return 0, false
	}
	v, err := units.ParseSize(s)
	return v.MiB(), err == nil
}

func durationOf(s string) *int64 {
	s = strings.TrimSpace(s)
	if s == "" || s == "none" {
		return nil
	}
	d, err := units.ParseDuration(s)
	if err != nil || d <= 0 {
		return nil
	}
	v := d.Milliseconds()
	return &v
}

// validName asks only for a name: the controller checks its shape and
// says what is wrong, so the rule lives in one place.
func validName(s string) error {
	if strings.TrimSpace(s) == "" {
		return errors.New("a name is needed")
	}
	return nil
}
