package controller

import (
	"fmt"
	"testing"

	"sandboxdesk/ipc"
)

// TestStalledSubscribersAreDropped: 200 subscribers that never read do not
// make the controller keep every event for them; each is dropped after
// maxQueued, is told so, and its channel closes. A reader is unaffected.
func TestStalledSubscribersAreDropped(t *testing.T) {
	e := newEnv(t)
	var stalled []<-chan ipc.Event
	for range 200 {
		ch, stop := e.c.Subscribe()
		t.Cleanup(stop)
		stalled = append(stalled, ch)
	}
	live, stop := e.c.Subscribe()
	defer stop()
	for i := range 3 * maxQueued {
		e.c.Notice("", fmt.Sprintf("tick %d", i))
		// the reader keeps up: it takes each event before the next
		if ev := <-live; ev.Message != fmt.Sprintf("tick %d", i) {
			t.Fatalf("the reading subscriber got %q at tick %d", ev.Message, i)
		}
		if events, _ := e.c.events.buffered(); events > 200*maxQueued {
			t.Fatalf("after %d events, %d are buffered: stalled subscribers are kept", i+1, events)
		}
	}
	if events, subs := e.c.events.buffered(); subs != 1 || events != 0 {
		t.Errorf("%d subscribers and %d buffered events left, want only the reader", subs, events)
	}
	for i, ch := range stalled {
		var last ipc.Event
		n := 0
		for ev := range ch { // the pump hands the event it held, then the notice
			last, n = ev, n+1
		}
		if last.Message != droppedMessage || n > 2 {
			t.Fatalf("stalled subscriber %d: %d events ending with %q, want the drop notice and a closed channel", i, n, last.Message)
		}
	}
}
