package controller

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"sandboxdesk/ipc"
)

func TestFiftyCreatesOfOneName(t *testing.T) {
	e := newEnv(t)
	var wg sync.WaitGroup
	ids := make([]string, 50)
	errs := make([]error, 50)
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sb, err := e.c.Create(t.Context(), ipc.CreateRequest{Name: "w", MemoryMiB: mib(2048), CPUs: intp(2)})
			ids[i], errs[i] = sb.ID, err
		}()
	}
	wg.Wait()
	for i := range 50 {
		if errs[i] != nil {
			t.Fatalf("create %d: %v", i, errs[i])
		}
		if ids[i] != ids[0] {
			t.Fatalf("create %d got id %s, create 0 got %s", i, ids[i], ids[0])
		}
	}
	if n := e.rows(); n != 1 || e.vm.Starts() != 1 {
		t.Errorf("%d rows and %d starts, want one of each", n, e.vm.Starts())
	}
}

func TestCreatesOfDifferentNamesRunInParallel(t *testing.T) {
	e := newEnv(t, withHost(64, 16))
	// every start waits until all four are in flight together: if creates
	// of different names were serialized, none would ever pass
	e.vm.GateStarts(4)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = e.c.Create(ctx, ipc.CreateRequest{Name: fmt.Sprintf("w%d", i)})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("create w%d: %v", i, err)
		}
	}
}

func TestQueueBeyondAtOnce(t *testing.T) {
	e := newEnv(t)
	if _, err := e.c.SetLimits(t.Context(), intp(2), nil); err != nil {
		t.Fatal(err)
	}
	e.create(ipc.CreateRequest{Name: "a"})
	e.create(ipc.CreateRequest{Name: "b"})
	done := e.createQueued(t.Context(), "c")
	c, err := e.c.Inspect(t.Context(), ipc.Ref{Name: "c"})
	if err != nil || c.State != ipc.StateQueued || c.QueuePosition != 1 {
		t.Fatalf("third start: %+v, %v; want queued #1", c, err)
	}
	select {
	case err := <-done:
		t.Fatalf("third create returned (%v) while the host was full", err)
	default:
	}
	if _, err := e.c.Stop(t.Context(), ipc.Ref{Name: "a"}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("queued create: %v", err)
	}
	c, _ = e.c.Inspect(t.Context(), ipc.Ref{Name: "c"})
	if c.State != ipc.StateRunning {
		t.Errorf("after a slot freed, c is %s", c.State)
	}
}

func TestQueueIsFIFO(t *testing.T) {
	e := newEnv(t)
	if _, err := e.c.SetLimits(t.Context(), intp(1), nil); err != nil {
		t.Fatal(err)
	}
	e.create(ipc.CreateRequest{Name: "a"})
	events, stop := e.c.Subscribe()
	defer stop()
	var order []string
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, n := range []string{"b", "c", "d"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := e.c.Create(t.Context(), ipc.CreateRequest{Name: n}); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			order = append(order, n)
			mu.Unlock()
			e.c.Stop(t.Context(), ipc.Ref{Name: n}) // let the next one in
		}()
		// queue them in a known order
		waitFor(t, events, func(ev ipc.Event) bool { return ev.Sandbox == n && ev.State == ipc.StateQueued })
	}
	if _, err := e.c.Stop(t.Context(), ipc.Ref{Name: "a"}); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if fmt.Sprint(order) != "[b c d]" {
		t.Errorf("started in order %v, want [b c d]", order)
	}
}

func TestCancelledQueuedCreateLeavesNoRecord(t *testing.T) {
	e := newEnv(t)
	if _, err := e.c.SetLimits(t.Context(), intp(1), nil); err != nil {
		t.Fatal(err)
	}
	e.create(ipc.CreateRequest{Name: "a"})
	ctx, cancel := context.WithCancel(t.Context())
	done := e.createQueued(ctx, "b")
	cancel()
	if err := <-done; err == nil {
		t.Fatal("cancelled create succeeded")
	}
	if _, err := e.c.Inspect(t.Context(), ipc.Ref{Name: "b"}); err == nil {
		t.Error("a cancelled queued create left a sandbox")
	}
	if n := e.rows(); n != 1 {
		t.Errorf("%d rows, want only a's", n)
	}
	if e.workspaceExists("b") {
		t.Error("a cancelled queued create left its workspace")
	}
	// a's slot is still the only one used: another create still queues
	if d := e.defaults(); d.Active != 1 {
		t.Errorf("active %d after the cancel, want 1", d.Active)
	}
}

func TestStopCallsOffAQueuedStart(t *testing.T) {
	e := newEnv(t)
	e.stopped("b")
	if _, err := e.c.SetLimits(t.Context(), intp(1), nil); err != nil {
		t.Fatal(err)
	}
	e.create(ipc.CreateRequest{Name: "a"})
	done := e.createQueued(t.Context(), "b")
	sb, err := e.c.Stop(t.Context(), ipc.Ref{Name: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if sb.State != ipc.StateStopped {
		t.Errorf("stopped queued sandbox is %s", sb.State)
	}
	if err := <-done; err == nil {
		t.Error("the called-off create reported success")
	}
}

// createQueued starts a create of name that must queue, and returns once
// it is queued; the channel gives the create's result.
func (e *env) createQueued(ctx context.Context, name string) <-chan error {
	e.t.Helper()
	events, stop := e.c.Subscribe()
	defer stop()
	done := make(chan error, 1)
	go func() {
		_, err := e.c.Create(ctx, ipc.CreateRequest{Name: name})
		done <- err
	}()
	waitFor(e.t, events, func(ev ipc.Event) bool { return ev.Sandbox == name && ev.State == ipc.StateQueued })
	return done
}

// waitFor reads events until one matches, or fails the test.
func waitFor(t *testing.T, events <-chan ipc.Event, match func(ipc.Event) bool) ipc.Event {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatal("event stream closed")
			}
			if match(ev) {
				return ev
			}
		case <-timeout:
			t.Fatal("the awaited event never came")
		}
	}
}
