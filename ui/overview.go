package ui

import (
	"context"
	"fmt"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"sandboxdesk/ipc"
	"sandboxdesk/units"
)

// Planner answers the two questions the overview asks. The controller
// answers them in the app; tests answer them with fixed figures.
type Planner interface {
	Defaults(ctx context.Context) (ipc.Defaults, error)
	Capacity(ctx context.Context) (ipc.Capacity, error)
}

// Overview shows this host's memory budget, what a new sandbox would get
// and how many sandboxes the host carries.
type Overview struct {
	planner Planner
	status  *widget.Label
	budget  *widget.Label
	newbox  *widget.Label
	host    *widget.Label
	carry   *widget.Label
	content fyne.CanvasObject
}

// NewOverview builds the overview; call Refresh to fill it.
func NewOverview(p Planner) *Overview {
	o := &Overview{
		planner: p,
		status:  widget.NewLabel("Measuring this host…"),
		budget:  widget.NewLabel("–"),
		newbox:  widget.NewLabel("–"),
		host:    widget.NewLabel("–"),
		carry:   widget.NewLabel("–"),
	}
	title := widget.NewLabelWithStyle("sandboxdesk", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	form := widget.NewForm(
		widget.NewFormItem("Memory budget", o.budget),
		widget.NewFormItem("A new sandbox gets", o.newbox),
		widget.NewFormItem("This host", o.host),
		widget.NewFormItem("Recommended", o.carry),
	)
	o.content = container.NewVBox(title, form, o.status)
	return o
}

// Content is the overview's widget tree.
func (o *Overview) Content() fyne.CanvasObject { return o.content }

// Refresh asks the planner again and shows the answer. It blocks on the
// planner, so call it off the UI goroutine; the widgets are updated through
// fyne.Do.
func (o *Overview) Refresh(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	d, err := o.planner.Defaults(ctx)
	var c ipc.Capacity
	if err == nil {
		c, err = o.planner.Capacity(ctx)
	}
	fyne.DoAndWait(func() { o.show(d, c, err) })
}

func (o *Overview) show(d ipc.Defaults, c ipc.Capacity, err error) {
	if err != nil {
		o.status.SetText("Could not measure this host: " + err.Error())
		return
	}
	h := c.Host
	o.budget.SetText(fmt.Sprintf("%s of %s RAM (half), %s committed", units.FormatMiB(d.BudgetMiB), units.Size(h.TotalMemoryBytes), units.FormatMiB(d.CommittedMiB)))
	o.newbox.SetText(fmt.Sprintf("%s memory, %d CPUs, %s disk", units.FormatMiB(d.MemoryMiB), d.CPUs, units.FormatMiB(d.DiskMiB)))
	o.host.SetText(fmt.Sprintf("%d CPUs, %s free disk", h.CPUCount, units.Size(h.AvailableDiskBytes)))
	o.carry.SetText(fmt.Sprintf("%d at once, %d retained (sandboxes of %d CPUs, %s)", c.Recommended.AtOnce, c.Recommended.Retained, c.Size.CPUs, units.FormatMiB(c.Size.MemoryMiB)))
	o.status.SetText("")
}
