package ui

import (
	"fmt"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"sandboxdesk/ipc"
	"sandboxdesk/units"
)

// mainView is the main window's content.
type mainView struct {
	u        *App
	header   *widget.Label
	status   *widget.Label
	list     *keyList
	empty    fyne.CanvasObject
	selected *widget.Label
	buttons  map[string]*widget.Button
	bar      *widget.ProgressBar
	barText  *widget.Label
	barRow   fyne.CanvasObject
	tips     *tooltips
	content  fyne.CanvasObject

	sandboxes []ipc.Sandbox
	defaults  ipc.Defaults
	limits    ipc.Limits
	pick      int // the selected row, -1 for none
}

func newMainView(u *App) *mainView {
	m := &mainView{u: u, pick: -1, buttons: map[string]*widget.Button{}, tips: newTooltips()}
	m.header = widget.NewLabel("")
	m.header.Truncation = fyne.TextTruncateEllipsis
	m.status = widget.NewLabel("")
	m.status.Wrapping = fyne.TextWrapWord
	add := widget.NewButtonWithIcon("Add sandbox", theme.ContentAddIcon(), u.showAdd)
	settings := widget.NewButtonWithIcon("", theme.SettingsIcon(), u.showSettings)
	images := widget.NewButtonWithIcon("Images", theme.DownloadIcon(), u.showImages)
	title := widget.NewLabelWithStyle("sandboxdesk", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	top := container.NewVBox(container.NewBorder(nil, nil, title, container.NewHBox(add, images, settings)), m.header)

	head := container.New(columnLayout{})
	for _, c := range columns {
		l := widget.NewLabelWithStyle(c, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		l.Truncation = fyne.TextTruncateEllipsis
		head.Add(l)
	}
	m.list = newKeyList(u.typedKey,
		func() int { return len(m.sandboxes) },
		func() fyne.CanvasObject { return newRow(m.tips) },
		func(i widget.ListItemID, o fyne.CanvasObject) {
			if i < len(m.sandboxes) {
				fillRow(o, m.sandboxes[i], m.defaults, time.Now())
			}
		},
	)
	m.list.OnSelected = func(i widget.ListItemID) { m.pick = i; m.updateActions() }
	m.list.OnUnselected = func(widget.ListItemID) { m.pick = -1; m.updateActions() }
	emptyLine := widget.NewLabel("No sandboxes yet. A sandbox is an isolated Linux machine with a workspace folder.")
	emptyLine.Wrapping = fyne.TextWrapWord
	emptyLine.Alignment = fyne.TextAlignCenter
	m.empty = container.NewVBox(layoutSpacer(), emptyLine,
		container.NewCenter(widget.NewButtonWithIcon("Add your first sandbox", theme.ContentAddIcon(), u.showAdd)))
	// until the controller has sent a list: the window opens before the
	// desktop app's controller has started, and "no sandboxes yet" is
	// not known then
	m.empty.Hide()
	table := container.NewBorder(head, nil, nil, nil, m.list)

	for _, b := range []struct {
		name string
		icon fyne.Resource
		fn   func()
	}{
		{"Open shell", theme.ComputerIcon(), func() { u.openShell(m.selectedName()) }},
		{"Start", theme.MediaPlayIcon(), m.start},
		{"Stop", theme.MediaStopIcon(), m.stop},
		{"Remove…", theme.DeleteIcon(), m.remove},
		{"Workspace", theme.FolderOpenIcon(), m.openWorkspace},
	} {
		m.buttons[b.name] = widget.NewButtonWithIcon(b.name, b.icon, b.fn)
	}
	// the buttons come first so they stay put whatever name is selected;
	// the name takes what width is left and ends with an ellipsis
	m.selected = widget.NewLabel("")
	m.selected.Truncation = fyne.TextTruncateEllipsis
	actions := container.NewBorder(nil, nil,
		container.NewHBox(m.buttons["Open shell"], m.buttons["Start"], m.buttons["Stop"], m.buttons["Remove…"]),
		m.buttons["Workspace"], m.selected)
	m.bar = widget.NewProgressBar()
	m.barText = widget.NewLabel("")
	m.barRow = container.NewBorder(nil, nil, m.barText, nil, m.bar)
	m.barRow.Hide()
	bottom := container.NewVBox(m.barRow, m.status, actions)
	body := container.NewBorder(top, bottom, nil, nil, container.NewStack(table, m.empty))
	m.content = container.NewStack(body, m.tips.layer)
	m.updateActions()
	return m
}

func layoutSpacer() fyne.CanvasObject { return widget.NewLabel("") }

// show puts fresh figures on screen; it runs on the UI goroutine.
func (m *mainView) show(list []ipc.Sandbox, lim ipc.Limits, d ipc.Defaults) {
	name := m.selectedName()
	m.sandboxes, m.limits, m.defaults = list, lim, d
	m.pick = -1
	for i, sb := range list {
		if sb.Name == name {
			m.pick = i
		}
	}
	running, backend := 0, "—"
	for _, sb := range list {
		if sb.State.Active() {
			running++
		}
		backend = sb.Backend
	}
	// the committed memory is the controller's figure, not a sum made here
	m.header.SetText(fmt.Sprintf("Memory %s of %s reserved  ·  Running %d of %d at once  ·  %s",
		units.FormatMiB(d.CommittedMiB), units.FormatMiB(d.BudgetMiB), running, lim.AtOnce, backend))
	if len(list) == 0 {
		m.empty.Show()
		m.list.Hide()
	} else {
		m.empty.Hide()
		m.list.Show()
	}
	m.list.Refresh()
	if m.pick >= 0 {
		m.list.Select(m.pick)
	} else {
		m.list.UnselectAll()
	}
	m.updateActions()
}

// tick redraws the rows so AGE and IDLE move on; UI goroutine.
func (m *mainView) tick() { m.list.Refresh() }

func (m *mainView) selectedName() string {
	if m.pick < 0 || m.pick >= len(m.sandboxes) {
		return ""
	}
	return m.sandboxes[m.pick].Name
}

// updateActions enables what makes sense for the selected sandbox.
func (m *mainView) updateActions() {
	for _, b := range m.buttons {
		b.Disable()
	}
	name := m.selectedName()
	if name == "" {
		m.selected.SetText("Select a sandbox")
		return
	}
	sb := m.sandboxes[m.pick]
	m.selected.SetText(name)
	m.buttons["Remove…"].Enable()
	m.buttons["Workspace"].Enable()
	switch {
	case sb.State == ipc.StateRunning:
		m.buttons["Open shell"].Enable()
		m.buttons["Stop"].Enable()
	case sb.State == ipc.StateQueued:
		m.buttons["Stop"].Enable() // calls off the wait
	case startable(sb.State):
		m.buttons["Start"].Enable()
	}
}

func (m *mainView) start() {
	name := m.selectedName()
	m.u.start("Start "+name, ipc.CreateRequest{Name: name}, nil)
}

func (m *mainView) stop() {
	name := m.selectedName()
	m.u.call("Stop "+name, ipc.StopRequest{Ref: ipc.Ref{Name: name}}, &ipc.Sandbox{})
}

// openWorkspace shows the sandbox's workspace folder in the system's file
// manager, or its path to copy where there is none.
func (m *mainView) openWorkspace() {
	sb := m.sandboxes[m.pick]
	if err := m.u.fyne.OpenURL(folderURL(sb.Workspace)); err != nil {
		m.u.showProblem("Open the workspace of "+sb.Name, problem{
			line:     "No file manager could open the workspace of " + sb.Name + ". Its folder is:",
			copyText: sb.Workspace, detail: err.Error()})
	}
}

// remove asks first: the workspace goes with the sandbox. Return removes,
// Escape cancels.
func (m *mainView) remove() {
	name := m.selectedName()
	msg := widget.NewLabel(fmt.Sprintf("Remove %s? Its workspace folder and everything in it will be deleted.", name))
	msg.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustomWithoutButtons("Remove sandbox", msg, m.u.win)
	k := m.u.keyed(d, nil)
	k.onReturn = func() {
		d.Hide()
		var rep ipc.RemoveReply
		m.u.call("Remove "+name, ipc.RemoveRequest{Names: []string{name}}, &rep)
	}
	k.onEscape = d.Hide
	removeButton := widget.NewButton("Remove", k.onReturn)
	removeButton.Importance = widget.DangerImportance
	d.SetButtons([]fyne.CanvasObject{widget.NewButton("Cancel", d.Hide), removeButton})
	d.Resize(fyne.NewSize(min(440, m.u.win.Canvas().Size().Width-20), 0))
	k.Show()
}

// progress shows a tick of a long step under the header.
func (m *mainView) progress(e ipc.Event) {
	if e.Progress >= 1 {
		m.barRow.Hide()
		return
	}
	// a pull's tick is about an image, and its message names it
	if e.Sandbox != "" {
		m.barText.SetText(e.Sandbox + ": " + e.Message)
	} else {
		m.barText.SetText(e.Message)
	}
	m.bar.SetValue(max(e.Progress, 0))
	m.barRow.Show()
}

// notice shows something the controller wants a person to see.
func (m *mainView) notice(e ipc.Event) { m.status.SetText(e.Sandbox + ": " + e.Message) }

// typedKey makes the list usable without a mouse: Delete removes, Enter
// opens a shell.
func (m *mainView) typedKey(k *fyne.KeyEvent) {
	switch k.Name {
	case fyne.KeyDelete:
		if m.selectedName() != "" {
			m.remove()
		}
	case fyne.KeyReturn, fyne.KeyEnter:
		if b := m.buttons["Open shell"]; !b.Disabled() {
			m.u.openShell(m.selectedName())
		}
	}
}

// find is the listed sandbox of that name; UI goroutine.
func (m *mainView) find(name string) (ipc.Sandbox, bool) {
	for _, sb := range m.sandboxes {
		if sb.Name == name {
			return sb, true
		}
	}
	return ipc.Sandbox{}, false
}
