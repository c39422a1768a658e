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
	"fyne.io/fyne/v2/theme"
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
	// backend is offered only when the controller has more than one
	backend     *widget.Select
	backendItem *widget.FormItem
	memItem     *widget.FormItem
	image       *widget.Select
	memory      *dialogEntry
	cpus        *dialogEntry
	disk        *dialogEntry
	idle        *dialogEntry
	life        *dialogEntry
	hint        *widget.Label // what a sandbox added now would get
	about       *widget.Label // the name taken, the queue, or why Create failed
	create      *widget.Button
	dlg         *keyedDialog
	stop        func()

	defaults ipc.Defaults
	invalid  bool   // a field is wrong
	refusal  string // why the controller refused the last Create; kept until an edit
	sent     string // the name a create is under way for; UI goroutine
	closed   bool
}

func (u *App) showAdd() {
	if u.modal() {
		return
	}
	ctx, cancel := u.withTimeout(context.Background(), timeout)
	defer cancel()
	var r ipc.Ranges
	if err := u.client.Call(ctx, ipc.RangesRequest{}, &r); err != nil {
		u.showError("Add sandbox", err)
		return
	}
	a := newAddDialog(u, r)
	a.dlg.Show()
	u.win.Canvas().Focus(a.name)
	a.name.TypedShortcut(&fyne.ShortcutSelectAll{}) // typing replaces the suggestion
	go a.refetch()
}

func newAddDialog(u *App, r ipc.Ranges) *addDialog {
	a := &addDialog{u: u, ranges: r}
	entry := func() *dialogEntry { return newDialogEntry(a.close, a.submit) }
	a.name = entry()
	a.name.Validator = func(s string) error { return ipc.CheckName("name", strings.TrimSpace(s)) }
	a.name.SetText(freeName(u.main.sandboxes))
	a.name.OnChanged = func(string) { a.edited() }
	a.image = widget.NewSelect(nil, func(string) { a.edited() })
	a.memory, a.disk, a.cpus, a.idle, a.life = entry(), entry(), entry(), entry(), entry()
	a.idle.Validator, a.life.Validator = validDuration, validDuration
	a.idle.SetPlaceHolder("none")
	a.life.SetPlaceHolder("none")
	for _, e := range []*dialogEntry{a.memory, a.cpus, a.disk, a.idle, a.life} {
		e.OnChanged = func(string) { a.edited() }
	}
	a.hint = widget.NewLabel("")
	a.hint.Wrapping = fyne.TextWrapWord
	a.about = widget.NewLabel("")
	a.about.Wrapping = fyne.TextWrapWord
	a.about.Importance = widget.WarningImportance
	a.about.Hide()
	a.memItem = widget.NewFormItem("Memory", a.memory)
	items := []*widget.FormItem{widget.NewFormItem("Name", a.name)}
	if len(r.Backends) > 1 {
		a.backend = widget.NewSelect(r.Backends, a.chooseBackend)
		a.backendItem = widget.NewFormItem("Backend", a.backend)
		items = append(items, a.backendItem)
	}
	items = append(items, widget.NewFormItem("Image", a.image), a.memItem,
		widget.NewFormItem("CPUs", a.cpus), widget.NewFormItem("Disk", a.disk),
		widget.NewFormItem("Idle timeout", a.idle), widget.NewFormItem("Max lifetime", a.life))
	// before the form is made: it gives a field a line for its hint and
	// its errors only if it has a hint or a validator by then
	a.setRanges(r)
	a.form = widget.NewForm(items...)
	cancel := widget.NewButton("Cancel", a.close)
	a.create = widget.NewButton("Create", a.submit)
	a.create.Importance = widget.HighImportance
	a.form.SetOnValidationChanged(func(err error) { a.invalid = err != nil; a.enableCreate() })
	win := u.win.Canvas().Size()
	width := min(480, max(win.Width-60, 260))
	// the hint lines wrap: room for three lines each beyond their one
	content := scrolled(container.NewVBox(a.form, a.hint, a.about), u.win, width, 4*theme.TextSize()*2)
	d := dialog.NewCustomWithoutButtons("Add sandbox", content, u.win)
	d.SetButtons([]fyne.CanvasObject{cancel, a.create})
	a.dlg = u.keyed(d, func() { a.closed = true; a.stop() })
	a.dlg.onReturn, a.dlg.onEscape = a.submit, a.close
	// refetched in the event loop's goroutine, in order with the events
	a.stop = u.onStateChange(a.refetch)
	a.invalid = a.form.Validate() != nil
	a.enableCreate()
	return a
}

// setRanges fits the fields to a backend: its images (its default
// selected), and the ranges of its kind, which the validators check
// against. UI goroutine.
func (a *addDialog) setRanges(r ipc.Ranges) {
	a.ranges = r
	a.image.SetOptions(r.Images)
	if len(r.Images) > 0 {
		a.image.SetSelected(r.Images[0])
	} else {
		a.image.ClearSelected()
	}
	kind, hint := "for host processes", "empty: the default at start; a limit on the sandbox's processes"
	if r.VM {
		kind, hint = "for a VM", "empty: the default at start; a VM holds all of it while it runs"
	}
	a.memory.Validator = sizeValidator(r.MemoryMiB, kind)
	a.memItem.HintText = hint
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
	if a.backend != nil {
		a.backend.SetSelected(r.Backend) // calls back only on a change
		a.backendItem.HintText = "host processes in a jail, under a memory limit"
		if r.VM {
			a.backendItem.HintText = "a VM of its own: slower to start, it holds its memory while it runs"
		}
	}
	if a.create != nil { // nil: still being built
		// a typed value may be out of the new kind's range (512 MiB is too
		// little for a VM): the field says so at once
		for _, e := range []*dialogEntry{a.memory, a.cpus, a.disk} {
			e.Validate()
		}
		a.form.Refresh()
		a.invalid = a.form.Validate() != nil
		a.enableCreate()
		a.edited()
	}
}

// chooseBackend fetches the ranges and images of the backend chosen.
func (a *addDialog) chooseBackend(name string) {
	if name == a.ranges.Backend {
		return
	}
	go func() {
		ctx, cancel := a.u.withTimeout(context.Background(), timeout)
		defer cancel()
		var r ipc.Ranges
		err := a.u.client.Call(ctx, ipc.RangesRequest{Backend: name}, &r)
		a.u.do(func() {
			if a.backend.Selected != name {
				return // chosen again meanwhile: that answer fits the fields
			}
			if err != nil {
				a.backend.SetSelected(a.ranges.Backend)
				a.refusal = failure("Read what the "+name+" backend offers", err).line
				a.explain()
				return
			}
			a.setRanges(r)
		})
	}()
}

// freeName is the first agent-N no sandbox has.
func freeName(list []ipc.Sandbox) string {
	taken := map[string]bool{}
	for _, sb := range list {
		taken[sb.Name] = true
	}
	for n := 1; ; n++ {
		if name := "agent-" + strconv.Itoa(n); !taken[name] {
			return name
		}
	}
}

// enableCreate: Create needs every field valid and no create under way.
func (a *addDialog) enableCreate() {
	if a.sent == "" && !a.invalid {
		a.create.Enable()
	} else {
		a.create.Disable()
	}
}

// refetch asks the controller what a sandbox added now would get and puts
// it in the placeholders. Off the UI goroutine.
func (a *addDialog) refetch() {
	a.u.defaultsFetches.Add(1)
	ctx, cancel := a.u.withTimeout(context.Background(), timeout)
	defer cancel()
	var d ipc.Defaults
	if err := a.u.client.Call(ctx, ipc.DefaultsRequest{}, &d); err != nil {
		a.u.do(func() { a.hint.SetText(failure("Read the defaults", err).line) })
		return
	}
	fyne.DoAndWait(func() { a.showDefaults(d) })
}

func (a *addDialog) showDefaults(d ipc.Defaults) {
	a.defaults = d
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
	if a.sent != "" && a.listed(a.sent) {
		a.close() // it is in the list now, queued or starting: the row says the rest
		return
	}
	a.explain()
}

// listed reports whether the main window lists name; UI goroutine.
func (a *addDialog) listed(name string) bool {
	_, ok := a.u.main.find(name)
	return ok
}

// edited: a field changed, so the last refusal no longer applies.
func (a *addDialog) edited() {
	a.refusal = ""
	a.explain()
}

// explain says, before Create, what will happen beyond the plain case:
// an existing sandbox of that name is reused or rebuilt, or the host is
// full and the new one will wait in the queue.
func (a *addDialog) explain() {
	if a.sent != "" || a.about == nil { // nil: still being built
		return
	}
	name := strings.TrimSpace(a.name.Text)
	var lines []string
	if a.refusal != "" {
		lines = append(lines, a.refusal)
	}
	if sb, ok := a.u.main.find(name); ok {
		lines = append(lines, a.existing(sb))
	}
	lim := a.u.main.limits
	if lim.AtOnce > 0 && a.defaults.Active >= lim.AtOnce {
		lines = append(lines, fmt.Sprintf("The host runs %d at once and all are busy: this sandbox will wait in the queue and start when one stops.", lim.AtOnce))
	}
	a.setAbout(strings.Join(lines, "\n"))
}

// existing words what Create does with a sandbox that has the name.
func (a *addDialog) existing(sb ipc.Sandbox) string {
	switch {
	case a.ranges.Backend != "" && sb.Backend != "" && a.ranges.Backend != sb.Backend:
		return fmt.Sprintf("%s exists on %s: Create rebuilds it on %s, keeping its workspace.", sb.Name, sb.Backend, a.ranges.Backend)
	case a.image.Selected != "" && sb.Image != "" && a.image.Selected != sb.Image:
		return fmt.Sprintf("%s exists with image %s: Create rebuilds it with %s, keeping its workspace.", sb.Name, sb.Image, a.image.Selected)
	case a.memory.Text == "" && a.cpus.Text == "" && a.disk.Text == "" && a.idle.Text == "" && a.life.Text == "":
		return fmt.Sprintf("%s exists (%s): Create reuses it as it is, starting it if it is stopped.", sb.Name, sb.State)
	}
	return fmt.Sprintf("%s exists (%s): Create reuses it if it already has at least what you ask, else rebuilds it, keeping its workspace.", sb.Name, sb.State)
}

func (a *addDialog) setAbout(text string) {
	a.about.SetText(text)
	if text == "" {
		a.about.Hide()
	} else {
		a.about.Show()
	}
}

// request turns the fields into a create request; empty means the default
// at start.
func (a *addDialog) request() (ipc.CreateRequest, error) {
	if err := a.form.Validate(); err != nil {
		return ipc.CreateRequest{}, err
	}
	req := ipc.CreateRequest{Name: strings.TrimSpace(a.name.Text), Backend: a.ranges.Backend, Image: a.image.Selected}
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

// submit sends the create and keeps the dialog, with what was typed,
// until the sandbox shows in the list: a refusal then shows here and
// nothing is lost. The create itself has no timeout: it may wait in the
// queue, and its row says so.
func (a *addDialog) submit() {
	req, err := a.request()
	if err != nil || a.create.Disabled() {
		return
	}
	a.sent = req.Name
	a.create.Disable()
	a.setAbout("Creating " + req.Name + "…")
	go func() {
		var sb ipc.Sandbox
		err := a.u.client.Call(a.u.life, req, &sb)
		a.u.do(func() { a.done(req, err) })
	}()
}

// done is the create's answer; UI goroutine.
func (a *addDialog) done(req ipc.CreateRequest, err error) {
	switch {
	case err == nil:
		a.close()
	case a.u.life.Err() != nil:
	case a.closed: // it waited in the queue, then failed
		a.u.showRequestError("Create "+req.Name, req, err)
	default:
		a.sent = ""
		a.refusal = failure("Create "+req.Name, err).line
		a.explain()
		a.enableCreate()
	}
}

func (a *addDialog) close() {
	if a.closed {
		return
	}
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
