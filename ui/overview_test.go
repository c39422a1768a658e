package ui

import (
	"context"
	"errors"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"sandboxdesk/host"
	"sandboxdesk/ipc"
)

// fixedPlanner answers with fixed figures, or fails.
type fixedPlanner struct {
	d   ipc.Defaults
	c   ipc.Capacity
	err error
}

func (p fixedPlanner) Defaults(context.Context) (ipc.Defaults, error) { return p.d, p.err }
func (p fixedPlanner) Capacity(context.Context) (ipc.Capacity, error) { return p.c, p.err }

func TestOverviewShowsFigures(t *testing.T) {
	test.NewTempApp(t)
	p := fixedPlanner{
		d: ipc.Defaults{MemoryMiB: 4096, CPUs: 4, DiskMiB: 8192, BudgetMiB: 8192, CommittedMiB: 2048, Active: 1},
		c: ipc.Capacity{
			Host:        host.Info{CPUCount: 4, EffectiveCPUCores: 4, TotalMemoryBytes: 16 << 30, AvailableDiskBytes: 239 << 30},
			Size:        ipc.Size{CPUs: 2, MemoryMiB: 4096, DiskMiB: 8192},
			Recommended: ipc.Recommended{AtOnce: 3, Retained: 14},
		},
	}
	o := NewOverview(p)
	test.NewTempWindow(t, o.Content())
	o.Refresh(t.Context())
	for label, want := range map[string]string{
		o.budget.Text: "8 GiB of 16 GiB RAM (half), 2 GiB committed",
		o.newbox.Text: "4 GiB memory, 4 CPUs, 8 GiB disk",
		o.host.Text:   "4 CPUs, 239 GiB free disk",
		o.carry.Text:  "3 at once, 14 retained (sandboxes of 2 CPUs, 4 GiB)",
	} {
		if label != want {
			t.Errorf("label %q, want %q", label, want)
		}
	}
	if o.status.Text != "" {
		t.Errorf("status %q after a good refresh", o.status.Text)
	}
}

func TestOverviewShowsError(t *testing.T) {
	test.NewTempApp(t)
	o := NewOverview(fixedPlanner{err: errors.New("host not measured")})
	test.NewTempWindow(t, o.Content())
	o.Refresh(t.Context())
	if !strings.Contains(o.status.Text, "host not measured") {
		t.Errorf("status %q does not carry the error", o.status.Text)
	}
}
