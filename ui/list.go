package ui

import (
	"strconv"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"sandboxdesk/ipc"
	"sandboxdesk/units"
)

// columns of the sandbox list, and the share of the width each gets: a
// column never grows with its text, so a long name cannot widen the
// window or push the others aside.
var (
	columns = []string{"NAME", "STATE", "BACKEND", "IMAGE", "MEMORY", "CPUS", "AGE", "IDLE"}
	weights = []float32{3, 2, 1.6, 1.4, 2.4, 0.9, 1, 1}
)

// columnLayout gives each cell its share of the row's width; the row asks
// for no more width than the ellipses need.
type columnLayout struct{}

func (columnLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	var sum float32
	for _, w := range weights {
		sum += w
	}
	x := float32(0)
	for i, o := range objs {
		w := size.Width * weights[i] / sum
		o.Move(fyne.NewPos(x, 0))
		o.Resize(fyne.NewSize(w, size.Height))
		x += w
	}
}

func (columnLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var s fyne.Size
	for _, o := range objs {
		m := o.MinSize()
		s.Width += m.Width
		s.Height = max(s.Height, m.Height)
	}
	return s
}

// cell is one cell of the list: one line, ended with an ellipsis when its
// column is too narrow, the whole text then shown in a tooltip while the
// pointer rests on it.
type cell struct {
	widget.Label
	tips *tooltips
}

func newCell(tips *tooltips) *cell {
	c := &cell{tips: tips}
	c.Truncation = fyne.TextTruncateEllipsis
	c.ExtendBaseWidget(c)
	return c
}

// cut reports whether the text does not fit and shows with an ellipsis.
func (c *cell) cut() bool {
	w := fyne.MeasureText(c.Text, theme.TextSize(), c.TextStyle).Width
	return w+2*theme.InnerPadding() > c.Size().Width
}

func (c *cell) MouseIn(e *desktop.MouseEvent) {
	if c.cut() {
		c.tips.show(c.Text, e.AbsolutePosition.Subtract(e.Position).AddXY(0, c.Size().Height))
	}
}
func (c *cell) MouseMoved(*desktop.MouseEvent) {}
func (c *cell) MouseOut()                      { c.tips.hide() }

// tooltips is a layer over the window that shows one tooltip. Nothing in
// it takes the pointer, so it never steals a click or a hover.
type tooltips struct {
	layer *fyne.Container
	box   *fyne.Container
	label *widget.Label
}

func newTooltips() *tooltips {
	t := &tooltips{label: widget.NewLabel("")}
	bg := canvas.NewRectangle(theme.Color(theme.ColorNameOverlayBackground))
	bg.StrokeColor = theme.Color(theme.ColorNameSeparator)
	bg.StrokeWidth = 1
	t.box = container.NewStack(bg, t.label)
	t.box.Hide()
	t.layer = container.NewWithoutLayout(t.box)
	return t
}

// show puts text at abs, a position on the canvas, kept inside the layer.
func (t *tooltips) show(text string, abs fyne.Position) {
	t.label.SetText(text)
	origin := fyne.CurrentApp().Driver().AbsolutePositionForObject(t.layer)
	size := t.box.MinSize()
	pos := abs.Subtract(origin)
	pos.X = max(0, min(pos.X, t.layer.Size().Width-size.Width))
	t.box.Resize(size)
	t.box.Move(pos)
	t.box.Show()
}

func (t *tooltips) hide() { t.box.Hide() }

// newRow is a list row's cells.
func newRow(tips *tooltips) fyne.CanvasObject {
	row := container.New(columnLayout{})
	for range columns {
		row.Add(newCell(tips))
	}
	return row
}

// fillRow shows sb in a row made by newRow.
func fillRow(row fyne.CanvasObject, sb ipc.Sandbox, d ipc.Defaults, now time.Time) {
	texts := rowCells(sb, d, now)
	for j, o := range row.(*fyne.Container).Objects {
		c := o.(*cell)
		c.Text = texts[j]
		c.Importance = widget.MediumImportance
		if j == 1 {
			c.Importance = stateImportance(sb.State)
		}
		c.Refresh()
	}
}

// rowCells are a sandbox's cells in the list. CPUs and memory say what
// the sandbox has or would get, never "default".
func rowCells(sb ipc.Sandbox, d ipc.Defaults, now time.Time) []string {
	mem := "—"
	switch {
	case sb.ReservedMiB > 0:
		mem = units.FormatMiB(sb.ReservedMiB) + " reserved"
	case sb.MemoryLimitMiB > 0:
		mem = units.FormatMiB(sb.MemoryLimitMiB) + " limit"
	}
	cpus := sb.CPUs
	if cpus == 0 {
		cpus = d.CPUs
	}
	idle := "—"
	if sb.State == ipc.StateRunning && sb.LastUsedAt != nil {
		idle = units.Age(now.Sub(*sb.LastUsedAt))
	}
	return []string{nameText(sb), stateText(sb), backendText(sb), sb.Image, mem, strconv.Itoa(cpus), units.Age(now.Sub(sb.CreatedAt)), idle}
}

// backendText names the backend and, for a running VM, how it runs: one
// under software emulation (tcg) is the slow one.
func backendText(sb ipc.Sandbox) string {
	if sb.Accel != "" {
		return sb.Backend + " · " + sb.Accel
	}
	return sb.Backend
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
	marks := map[ipc.State]string{ipc.StateRunning: "● ", ipc.StateStarting: "◌ ", ipc.StateStopping: "◌ ",
		ipc.StateQueued: "◔ ", ipc.StateStopped: "○ ", ipc.StateSuspended: "○ ", ipc.StateBroken: "✕ "}
	s := marks[sb.State] + string(sb.State)
	if sb.State == ipc.StateQueued && sb.QueuePosition > 0 {
		s += " #" + strconv.Itoa(sb.QueuePosition)
	}
	if sb.OOMKills > 0 || sb.PidsLimitHits > 0 {
		s += " · limit hit" // what and when: sandboxdesk inspect
	}
	return s
}

// stateImportance colours a state: running green, on its way amber,
// broken red, stopped grey.
func stateImportance(s ipc.State) widget.Importance {
	switch s {
	case ipc.StateRunning:
		return widget.SuccessImportance
	case ipc.StateStarting, ipc.StateStopping, ipc.StateQueued:
		return widget.WarningImportance
	case ipc.StateBroken:
		return widget.DangerImportance
	case ipc.StateStopped, ipc.StateSuspended:
		return widget.LowImportance
	}
	return widget.MediumImportance
}

// keyList is the sandbox list. A click gives it the keyboard; Return and
// Delete then still open a shell and remove, as they do with no focus.
type keyList struct {
	widget.List
	key func(*fyne.KeyEvent)
}

func newKeyList(key func(*fyne.KeyEvent), length func() int, create func() fyne.CanvasObject, update func(widget.ListItemID, fyne.CanvasObject)) *keyList {
	l := &keyList{key: key}
	l.Length, l.CreateItem, l.UpdateItem = length, create, update
	l.ExtendBaseWidget(l)
	return l
}

func (l *keyList) TypedKey(k *fyne.KeyEvent) {
	switch k.Name {
	case fyne.KeyReturn, fyne.KeyEnter, fyne.KeyDelete:
		l.key(k)
	default:
		l.List.TypedKey(k)
	}
}
