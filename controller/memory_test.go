package controller

import (
	"testing"

	"sandboxdesk/ipc"
)

func (e *env) reserved(name string) int64 {
	e.t.Helper()
	sb, err := e.c.Inspect(e.t.Context(), ipc.Ref{Name: name})
	if err != nil {
		e.t.Fatal(err)
	}
	return sb.ReservedMiB
}

func (e *env) defaults() ipc.Defaults {
	e.t.Helper()
	d, err := e.c.Defaults(e.t.Context())
	if err != nil {
		e.t.Fatal(err)
	}
	return d
}

// stoppedPair makes two stopped sandboxes a and b.
func (e *env) stopped(names ...string) []ipc.Ref {
	var refs []ipc.Ref
	for _, n := range names {
		e.create(ipc.CreateRequest{Name: n})
		ref := ipc.Ref{Name: n}
		if _, err := e.c.Stop(e.t.Context(), ref); err != nil {
			e.t.Fatal(err)
		}
		refs = append(refs, ref)
	}
	return refs
}

func TestLaunchSplitsEvenly(t *testing.T) {
	e := newEnv(t, withHost(16, 8))
	refs := e.stopped("a", "b")
	if err := e.c.Launch(t.Context(), refs); err != nil {
		t.Fatal(err)
	}
	if a, b := e.reserved("a"), e.reserved("b"); a != 4096 || b != 4096 {
		t.Errorf("launched together on 16 GiB: %d and %d MiB, want 4096 each", a, b)
	}
}

func TestLaunchDividesInParallel(t *testing.T) {
	e := newEnv(t, withHost(16, 8))
	refs := e.stopped("a", "b")
	e.vm.GateStarts(2) // both boots must be in flight together
	if err := e.c.Launch(t.Context(), refs); err != nil {
		t.Fatal(err)
	}
	if a, b := e.reserved("a"), e.reserved("b"); a != 4096 || b != 4096 {
		t.Errorf("launched together: %d and %d MiB, want 4096 each", a, b)
	}
}

func TestThirdJoiningTwoGetsAThird(t *testing.T) {
	e := newEnv(t, withHost(48, 16)) // a 24 GiB budget
	if err := e.c.Launch(t.Context(), e.stopped("a", "b")); err != nil {
		t.Fatal(err)
	}
	d := e.defaults()
	if d.Active != 2 || d.CommittedMiB != 16384 || d.BudgetMiB != 24576 {
		t.Fatalf("defaults beside two: %+v", d)
	}
	c := e.create(ipc.CreateRequest{Name: "c"})
	if c.ReservedMiB != 8192 || c.ReservedMiB != d.MemoryMiB {
		t.Errorf("third got %d MiB, defaults quoted %d; want 8192 (a third of 24 GiB)", c.ReservedMiB, d.MemoryMiB)
	}
}

func TestDefaultsQuoteTheNextStart(t *testing.T) {
	e := newEnv(t, withHost(16, 8))
	// the recommendation for 16 GiB is 3 at once; the fourth would queue
	if _, err := e.c.SetLimits(t.Context(), intp(4), nil); err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"a", "b", "c", "d"} {
		quoted := e.defaults()
		if quoted.Active != i {
			t.Errorf("before %s: active %d, want %d", name, quoted.Active, i)
		}
		got := e.create(ipc.CreateRequest{Name: name})
		if got.ReservedMiB != quoted.MemoryMiB {
			t.Errorf("%s: defaults quoted %d MiB, start handed out %d", name, quoted.MemoryMiB, got.ReservedMiB)
		}
	}
	// 16 GiB: alone 8, then the budget is spent: the floor.
	want := map[string]int64{"a": 8192, "b": 2048, "c": 2048, "d": 2048}
	for n, w := range want {
		if got := e.reserved(n); got != w {
			t.Errorf("%s reserved %d, want %d", n, got, w)
		}
	}
}

func TestBesideOneHolding(t *testing.T) {
	tests := []struct {
		name  string
		first int64
		want  int64
	}{
		{"beside one holding 8 GiB", 8192, 2048},
		{"beside one holding 2 GiB", 2048, 4096},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, withHost(16, 8))
			e.create(ipc.CreateRequest{Name: "first", MemoryMiB: mib(tt.first)})
			if d := e.defaults(); d.MemoryMiB != tt.want {
				t.Errorf("defaults %d, want %d", d.MemoryMiB, tt.want)
			}
			if got := e.create(ipc.CreateRequest{Name: "second"}); got.ReservedMiB != tt.want {
				t.Errorf("second got %d, want %d", got.ReservedMiB, tt.want)
			}
		})
	}
}

func TestStopAndRemoveFreeTheReservation(t *testing.T) {
	e := newEnv(t, withHost(16, 8))
	e.create(ipc.CreateRequest{Name: "a"})
	e.create(ipc.CreateRequest{Name: "b"})
	if d := e.defaults(); d.CommittedMiB != 8192+2048 || d.Active != 2 {
		t.Fatalf("two running: %+v", d)
	}
	stopped, err := e.c.Stop(t.Context(), ipc.Ref{Name: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if stopped.ReservedMiB != 0 || stopped.State != ipc.StateStopped {
		t.Errorf("stopped sandbox holds %d MiB in state %s", stopped.ReservedMiB, stopped.State)
	}
	if d := e.defaults(); d.CommittedMiB != 2048 || d.Active != 1 || d.MemoryMiB != 4096 {
		t.Errorf("after stop: %+v, want 2048 committed, 1 active, 4096 quoted", d)
	}
	if removed, err := e.c.Remove(t.Context(), ipc.Ref{Name: "b"}); err != nil || !removed {
		t.Fatalf("remove b: %v, %v", removed, err)
	}
	if d := e.defaults(); d.CommittedMiB != 0 || d.Active != 0 || d.MemoryMiB != 8192 {
		t.Errorf("after remove: %+v, want nothing committed, 8192 quoted", d)
	}
	// a stopped sandbox holds no share: started again alone, it gets 8.
	if got := e.create(ipc.CreateRequest{Name: "a"}); got.ReservedMiB != 8192 {
		t.Errorf("restarted alone: %d, want 8192", got.ReservedMiB)
	}
}

func TestFailedStartReturnsTheReservation(t *testing.T) {
	e := newEnv(t, withHost(16, 8))
	e.vm.FailStarts(errBoom)
	_, err := e.c.Create(t.Context(), ipc.CreateRequest{Name: "a"})
	if err == nil {
		t.Fatal("create succeeded with a failing backend")
	}
	sb, _ := e.c.Inspect(t.Context(), ipc.Ref{Name: "a"})
	if sb.State != ipc.StateBroken || sb.Error == "" || sb.ReservedMiB != 0 {
		t.Errorf("after a failed start: %+v, want broken with the reason and nothing reserved", sb)
	}
	if d := e.defaults(); d.Active != 0 || d.MemoryMiB != 8192 {
		t.Errorf("a failed start still counts: %+v", d)
	}
	e.vm.FailStarts(nil)
	if got := e.create(ipc.CreateRequest{Name: "a"}); got.State != ipc.StateRunning || got.ID != sb.ID {
		t.Errorf("create after the failure: %+v, want the same sandbox running", got)
	}
}

func TestPrecedence(t *testing.T) {
	e := newEnv(t, withHost(16, 8))
	own := e.create(ipc.CreateRequest{Name: "own", MemoryMiB: mib(3072)})
	if own.ReservedMiB != 3072 {
		t.Errorf("own memory: reserved %d, want 3072", own.ReservedMiB)
	}
	if err := e.c.SetDefaultMemory(t.Context(), mib(5120)); err != nil {
		t.Fatal(err)
	}
	if d := e.defaults(); d.MemoryMiB != 5120 {
		t.Errorf("defaults with a Settings default: %d, want 5120", d.MemoryMiB)
	}
	set := e.create(ipc.CreateRequest{Name: "settings"})
	if set.ReservedMiB != 5120 {
		t.Errorf("Settings default: reserved %d, want 5120 (outranks the share)", set.ReservedMiB)
	}
	mine := e.create(ipc.CreateRequest{Name: "mine", MemoryMiB: mib(1024)})
	if mine.ReservedMiB != 1024 {
		t.Errorf("own memory beside a Settings default: %d, want 1024", mine.ReservedMiB)
	}
	if err := e.c.SetDefaultMemory(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	if d := e.defaults(); d.MemoryMiB != 2048 {
		t.Errorf("back to sharing with 9 GiB committed: %d, want the 2048 floor", d.MemoryMiB)
	}
	if err := e.c.SetDefaultMemory(t.Context(), mib(100)); err == nil {
		t.Error("a 100 MiB VM default was accepted")
	}
}

// TestHostMeasuredOncePerStart: a create (new, or reusing a stopped
// sandbox) and a launch of two each measure the host once; every decision
// of that start reads the one measurement.
func TestHostMeasuredOncePerStart(t *testing.T) {
	e := newEnv(t)
	count := func(what string, fn func()) {
		t.Helper()
		before := e.measures.Load()
		fn()
		if n := e.measures.Load() - before; n != 1 {
			t.Errorf("%s measured the host %d times, want once", what, n)
		}
	}
	count("a new create", func() { e.create(ipc.CreateRequest{Name: "a"}) })
	e.stopped("b")
	count("a create that starts a stopped match", func() { e.create(ipc.CreateRequest{Name: "b"}) })
	refs := e.stopped("a", "b")
	count("a launch of two", func() {
		if err := e.c.Launch(t.Context(), refs); err != nil {
			t.Fatal(err)
		}
	})
}
