package ui

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"sandboxdesk/ipc"
)

// A 70-character name ends with an ellipsis inside its column, shows
// whole in a tooltip, and the window still fits 640×400.
func TestLongNameIsEllipsised(t *testing.T) {
	r := newRig(t)
	r.u.win.Resize(fyne.NewSize(640, 400))
	long := strings.Repeat("refactor-", 7) + "agent-x" // 70 characters
	if len(long) != 70 {
		t.Fatalf("the name has %d characters", len(long))
	}
	now := time.Now()
	r.u.main.show([]ipc.Sandbox{{Name: long, State: ipc.StateRunning, Backend: "bubblewrap", Image: "host", CreatedAt: now, MemoryLimitMiB: 2048}}, ipc.Limits{AtOnce: 3}, ipc.Defaults{CPUs: 2})
	var c *cell
	for _, o := range test.LaidOutObjects(r.u.main.list) {
		if x, ok := o.(*cell); ok && x.Text == long {
			c = x
		}
	}
	if c == nil {
		t.Fatal("no cell holds the name")
	}
	shown := ""
	for _, o := range test.LaidOutObjects(c) {
		if txt, ok := o.(*canvas.Text); ok {
			shown += txt.Text
		}
	}
	if !strings.HasSuffix(shown, "…") || len(shown) >= len(long) {
		t.Errorf("the cell shows %q, want the name cut with an ellipsis", shown)
	}
	if w := c.Size().Width; w > 640/3 {
		t.Errorf("the name's column is %v wide on a 640 window", w)
	}
	c.MouseIn(&desktop.MouseEvent{PointEvent: fyne.PointEvent{AbsolutePosition: fyne.NewPos(20, 80), Position: fyne.NewPos(4, 4)}})
	if !r.u.main.tips.box.Visible() || r.u.main.tips.label.Text != long {
		t.Errorf("no tooltip with the whole name (shown %v, %q)", r.u.main.tips.box.Visible(), r.u.main.tips.label.Text)
	}
	c.MouseOut()
	if r.u.main.tips.box.Visible() {
		t.Error("the tooltip stays after the pointer left")
	}
	if m := r.u.win.Content().MinSize(); m.Width > 640 || m.Height > 400-30 {
		t.Errorf("the window's content needs %v; it must fit 640×400 with a menu bar", m)
	}
}

func TestRowCellsReadOneWay(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	used := now.Add(-3 * time.Minute)
	d := ipc.Defaults{CPUs: 4}
	for _, tc := range []struct {
		name       string
		sb         ipc.Sandbox
		mem, cpus  string
		state, age string
		idle       string
		importance widget.Importance
	}{
		{"a bubblewrap limit", ipc.Sandbox{State: ipc.StateRunning, MemoryLimitMiB: 2048, CPUs: 2, CreatedAt: now.Add(-2 * time.Hour), LastUsedAt: &used},
			"2 GiB limit", "2", "● running", "2 h", "3 min", widget.SuccessImportance},
		{"a VM's reservation, default CPUs", ipc.Sandbox{State: ipc.StateRunning, ReservedMiB: 4096, CreatedAt: now},
			"4 GiB reserved", "4", "● running", "now", "—", widget.SuccessImportance},
		{"stopped", ipc.Sandbox{State: ipc.StateStopped, MemoryMiB: 512, CreatedAt: now},
			"—", "4", "○ stopped", "now", "—", widget.LowImportance},
		{"queued", ipc.Sandbox{State: ipc.StateQueued, QueuePosition: 3, CreatedAt: now},
			"—", "4", "◔ queued #3", "now", "—", widget.WarningImportance},
		{"broken", ipc.Sandbox{State: ipc.StateBroken, CreatedAt: now},
			"—", "4", "✕ broken", "now", "—", widget.DangerImportance},
		{"starting", ipc.Sandbox{State: ipc.StateStarting, CreatedAt: now},
			"—", "4", "◌ starting", "now", "—", widget.WarningImportance},
	} {
		c := rowCells(tc.sb, d, now)
		if c[1] != tc.state || c[4] != tc.mem || c[5] != tc.cpus || c[6] != tc.age || c[7] != tc.idle {
			t.Errorf("%s: state %q memory %q cpus %q age %q idle %q", tc.name, c[1], c[4], c[5], c[6], c[7])
		}
		if got := stateImportance(tc.sb.State); got != tc.importance {
			t.Errorf("%s: colour %v, want %v", tc.name, got, tc.importance)
		}
	}
}

// The action bar's buttons stay put whatever name is selected.
func TestActionBarDoesNotShift(t *testing.T) {
	r := newRig(t)
	r.u.win.Resize(fyne.NewSize(640, 400))
	now := time.Now()
	r.u.main.show([]ipc.Sandbox{
		{Name: "a", State: ipc.StateRunning, CreatedAt: now},
		{Name: strings.Repeat("b", 63), State: ipc.StateRunning, CreatedAt: now},
	}, ipc.Limits{AtOnce: 3}, ipc.Defaults{CPUs: 2})
	var xs [2][]float32
	for i := range 2 {
		r.u.main.list.Select(i)
		for _, name := range []string{"Open shell", "Stop", "Remove…", "Workspace"} {
			b := r.u.main.buttons[name]
			xs[i] = append(xs[i], fyne.CurrentApp().Driver().AbsolutePositionForObject(b).X)
		}
	}
	for j := range xs[0] {
		if xs[0][j] != xs[1][j] {
			t.Errorf("buttons at %v with a short name, %v with a long one", xs[0], xs[1])
			break
		}
	}
}
