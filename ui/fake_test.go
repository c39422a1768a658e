package ui

import (
	"context"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// fakeClock stands in for the UI's timeouts: advance ends every request
// whose timeout has passed, as real time would.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Duration
	timers []fakeTimer
}

type fakeTimer struct {
	at     time.Duration
	cancel context.CancelCauseFunc
}

func (f *fakeClock) withTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	f.mu.Lock()
	f.timers = append(f.timers, fakeTimer{at: f.now + d, cancel: cancel})
	f.mu.Unlock()
	return ctx, func() { cancel(context.Canceled) }
}

func (f *fakeClock) advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now += d
	for _, t := range f.timers {
		if t.at <= f.now {
			t.cancel(context.DeadlineExceeded)
		}
	}
}

// useFakeClock gives the rig's app a fake clock for its timeouts.
func (r *rig) useFakeClock() *fakeClock {
	f := &fakeClock{}
	r.u.withTimeout = f.withTimeout
	return f
}

// labels are the texts of the labels laid out under o.
func labels(o fyne.CanvasObject) []string {
	var out []string
	for _, x := range test.LaidOutObjects(o) {
		if l, ok := x.(*widget.Label); ok && l.Visible() {
			out = append(out, l.Text)
		}
	}
	return out
}

// buttons are the visible buttons laid out under o.
func buttons(o fyne.CanvasObject) map[string]*widget.Button {
	out := map[string]*widget.Button{}
	for _, x := range test.LaidOutObjects(o) {
		if b, ok := x.(*widget.Button); ok && b.Visible() {
			out[b.Text] = b
		}
	}
	return out
}

// press sends a key the way the window gets it when no widget has focus.
func (r *rig) press(k fyne.KeyName) {
	r.u.win.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: k})
}

// shown reports how many dialogs hold the keyboard.
func (r *rig) shown() int { return len(r.u.keys.open) }
