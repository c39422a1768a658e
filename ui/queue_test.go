package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"sandboxdesk/ipc"
)

// A sandbox added from the dialog while the host is full waits in the
// queue for as long as it takes: 60 s of the UI's clock end every timed
// request, and the create still ends running once a slot frees.
func TestQueuedCreateFromTheDialogOutlivesTimeouts(t *testing.T) {
	r := newRig(t)
	clock := r.useFakeClock()
	if _, err := r.c.SetLimits(t.Context(), ptr(1), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := r.c.Create(t.Context(), ipc.CreateRequest{Name: "first"}); err != nil {
		t.Fatal(err)
	}
	r.u.Refresh(t.Context())
	a := r.addDialog()
	a.name.SetText("second")
	if !strings.Contains(a.about.Text, "wait in the queue") {
		t.Errorf("with the host full the dialog says %q, not that the sandbox will wait in the queue", a.about.Text)
	}
	test.Tap(a.create)
	r.eventually("the row shows second queued #1 and the dialog closed", func() bool {
		i, ok := r.row("second")
		return ok && stateText(r.u.main.sandboxes[i]) == "◔ queued #1" && a.closed
	})
	i, _ := r.row("second")
	r.u.main.list.Select(i)
	if !r.u.main.buttons["Start"].Disabled() {
		t.Error("Start is enabled on a queued sandbox")
	}
	clock.advance(60 * time.Second)

	if _, err := r.c.Stop(context.Background(), ipc.Ref{Name: "first"}); err != nil {
		t.Fatal(err)
	}
	r.eventually("second runs", func() bool {
		sb, err := r.c.Inspect(context.Background(), ipc.Ref{Name: "second"})
		return err == nil && sb.State == ipc.StateRunning
	})
	if n := r.shown(); n != 0 {
		t.Errorf("%d dialogs showing, want none: %q", n, labels(r.u.win.Canvas().Overlays().Top()))
	}
}

// row is the index of name in the main window's list.
func (r *rig) row(name string) (int, bool) {
	for i, sb := range r.u.main.sandboxes {
		if sb.Name == name {
			return i, true
		}
	}
	return -1, false
}
