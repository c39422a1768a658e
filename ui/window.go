package ui

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strconv"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"sandboxdesk/ipc"
	"sandboxdesk/units"
)

// columns of the sandbox list.
var columns = []string{"NAME", "STATE", "BACKEND", "IMAGE", "MEMORY", "CPUS", "AGE", "IDLE"}

// mainView is the main window's content.
type mainView struct {
	u        *App
	header   *widget.Label
	status   *widget.Label
	list     *widget.List
	empty    fyne.CanvasObject
	selected *widget.Label
	buttons  map[string]*widget.Button
	bar      *widget.ProgressBar
	barText  *widget.Label
	barRow   fyne.CanvasObject
	content  fyne.CanvasObject

	sandboxes []ipc.Sandbox
	pick      int // the selected row, -1 for none
}

func newMainView(u *App) *mainView {
	m := &mainView{u: u, pick: -1, buttons: map[string]*widget.Button{}}
	m.header = widget.NewLabel("")
	m.status = widget.NewLabel("")
	m.status.Wrapping = fyne.TextWrapWord
	add := widget.NewButtonWithIcon("Add sandbox", theme.ContentAddIcon(), u.showAdd)
	settings := widget.NewButtonWithIcon("", theme.SettingsIcon(), u.showSettings)
	title := widget.NewLabelWithStyle("sandboxdesk", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	top := container.NewVBox(container.NewBorder(nil, nil, title, container.NewHBox(add, settings)), m.header)

	head := container.NewGridWithColumns(len(columns))
	for _, c := range columns {
		head.Add(widget.NewLabelWithStyle(c, fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
	}
	m.list = widget.NewList(
		func() int { return len(m.sandboxes) },
		func() fyne.CanvasObject {
			row := container.NewGridWithColumns(len(columns))
			for range columns {
				row.Add(widget.NewLabel(""))
			}
			return row
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			cells := rowCells(m.sandboxes[i], time.Now())
			for j, obj := range o.(*fyne.Container).Objects {
				obj.(*widget.Label).SetText(cells[j])
			}
		},
	)
	m.list.OnSelected = func(i widget.ListItemID) { m.pick = i; m.updateActions() }
	m.list.OnUnselected = func(widget.ListItemID) { m.pick = -1; m.updateActions() }
	m.empty = container.NewCenter(container.NewVBox(
		widget.NewLabel("No sandboxes yet. A sandbox is an isolated Linux machine with a workspace folder."),
		container.NewCenter(widget.NewButtonWithIcon("Add your first sandbox", theme.ContentAddIcon(), u.showAdd)),
	))
	table := container.NewBorder(head, nil, nil, nil, m.list)

	m.selected = widget.NewLabel("")
	for _, b := range []struct {
		name string
		icon fyne.Resource
		fn   func()
	}{
		{"Open shell", theme.ComputerIcon(), m.openShell},
		{"Start", theme.MediaPlayIcon(), m.start},
		{"Stop", theme.MediaStopIcon(), m.stop},
		{"Remove…", theme.DeleteIcon(), m.remove},
		{"Workspace", theme.FolderOpenIcon(), m.openWorkspace},
	} {
		m.buttons[b.name] = widget.NewButtonWithIcon(b.name, b.icon, b.fn)
	}
	actions := container.NewBorder(nil, nil, container.NewHBox(m.selected, m.buttons["Open shell"], m.buttons["Start"], m.buttons["Stop"], m.buttons["Remove…"]), m.buttons["Workspace"])
	m.bar = widget.NewProgressBar()
	m.barText = widget.NewLabel("")
	m.barRow = container.NewBorder(nil, nil, m.barText, nil, m.bar)
	m.barRow.Hide()
	bottom := container.NewVBox(m.barRow, m.status, actions)
	m.content = container.NewBorder(top, bottom, nil, nil, container.NewStack(table, m.empty))
	m.updateActions()
	return m
}

// show puts fresh figures on screen; it runs on the UI goroutine.
func (m *mainView) show(list []ipc.Sandbox, lim ipc.Limits, d ipc.Defaults) {
	name := m.selectedName()
	m.sandboxes = list
	m.pick = -1
	for i, sb := range list {
		if sb.Name == name {
			m.pick = i
		}
	}
	running, reserved, backend := 0, int64(0), "—"
	for _, sb := range list {
		if sb.State == ipc.StateRunning || sb.State == ipc.StateStarting {
			running++
		}
		reserved += sb.ReservedMiB
		backend = sb.Backend
	}
	m.header.SetText(fmt.Sprintf("Memory %s of %s reserved  ·  Running %d of %d at once  ·  %s",
		units.FormatMiB(reserved), units.FormatMiB(d.BudgetMiB), running, lim.AtOnce, backend))
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
	m.selected.SetText("selected: " + name)
	m.buttons["Remove…"].Enable()
	m.buttons["Workspace"].Enable()
	if sb.State == ipc.StateRunning {
		m.buttons["Open shell"].Enable()
		m.buttons["Stop"].Enable()
	} else if !sb.State.Active() {
		m.buttons["Start"].Enable()
	}
	if sb.State == ipc.StateQueued {
		m.buttons["Stop"].Enable()
	}
}

func (m *mainView) start() {
	name := m.selectedName()
	var sb ipc.Sandbox
	m.u.call("Start "+name, ipc.CreateRequest{Name: name}, &sb)
}

func (m *mainView) stop() {
	name := m.selectedName()
	var sb ipc.Sandbox
	m.u.call("Stop "+name, ipc.StopRequest{Ref: ipc.Ref{Name: name}}, &sb)
}

func (m *mainView) openShell() {
	if err := m.u.OpenShell(m.selectedName()); err != nil {
		m.u.showError("Open a shell", err)
	}
}

// openWorkspace shows the sandbox's workspace folder in the system's file
// manager.
func (m *mainView) openWorkspace() {
	ws := m.sandboxes[m.pick].Workspace
	if err := m.u.fyne.OpenURL(&url.URL{Scheme: "file", Path: filepath.ToSlash(ws)}); err != nil {
		m.u.showError("Open the workspace", err)
	}
}

// remove asks first: the workspace goes with the sandbox.
func (m *mainView) remove() {
	name := m.selectedName()
	msg := fmt.Sprintf("Remove %s? Its workspace folder and everything in it will be deleted.", name)
	d := dialog.NewConfirm("Remove sandbox", msg, func(ok bool) {
		if ok {
			var rep ipc.RemoveReply
			m.u.call("Remove "+name, ipc.RemoveRequest{Names: []string{name}}, &rep)
		}
	}, m.u.win)
	d.SetConfirmText("Remove")
	d.SetConfirmImportance(widget.DangerImportance)
	d.Show()
}

// progress shows a tick of a long step under the header.
func (m *mainView) progress(e ipc.Event) {
	if e.Progress >= 1 {
		m.barRow.Hide()
		return
	}
	m.barText.SetText(e.Sandbox + ": " + e.Message)
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
			m.openShell()
		}
	}
}

// rowCells are a sandbox's cells in the list.
func rowCells(sb ipc.Sandbox, now time.Time) []string {
	mem := "—"
	switch {
	case sb.ReservedMiB > 0:
		mem = units.FormatMiB(sb.ReservedMiB)
	case sb.MemoryLimitMiB > 0:
		mem = units.FormatMiB(sb.MemoryLimitMiB) + " lim."
	case sb.MemoryMiB > 0:
		mem = units.FormatMiB(sb.MemoryMiB)
	}
	cpus := "default"
	if sb.CPUs > 0 {
		cpus = strconv.Itoa(sb.CPUs)
	}
	idle := "—"
	if sb.State == ipc.StateRunning && sb.LastUsedAt != nil {
		idle = units.Age(now.Sub(*sb.LastUsedAt))
	}
	return []string{nameText(sb), stateText(sb), sb.Backend, sb.Image, mem, cpus, units.Age(now.Sub(sb.CreatedAt)), idle}
}

// nameText flags a sandbox on the host's own network: it reaches what
// listens on the host's loopback, which no other sandbox does.
func nameText(sb ipc.Sandbox) string {
	if sb.Network == "host" {
		return sb.Name + " ⚠ host network"
	}
	return sb.Name
}

func stateText(sb ipc.Sandbox) string {
	marks := map[ipc.State]string{ipc.StateRunning: "● ", ipc.StateStarting: "◌ ", ipc.StateQueued: "◔ ", ipc.StateStopped: "○ ", ipc.StateBroken: "✕ "}
	s := marks[sb.State] + string(sb.State)
	if sb.State == ipc.StateQueued && sb.QueuePosition > 0 {
		s += " #" + strconv.Itoa(sb.QueuePosition)
	}
	return s
}
