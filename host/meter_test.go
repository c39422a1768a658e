package host

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"
)

// countingMeter is a Meter over fake readings that counts each one.
type countingMeter struct {
	*Meter
	clock                      time.Time
	cpus, memory, limit, frees int
	freeErr                    error
}

func newCountingMeter() *countingMeter {
	c := &countingMeter{clock: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	c.Meter = &Meter{root: "/", now: func() time.Time { return c.clock }, probe: probes{
		cpus:   func(context.Context) (int, error) { c.cpus++; return 8, nil },
		memory: func(context.Context) (uint64, error) { c.memory++; return 16 << 30, nil },
		limit:  func() (float64, bool) { c.limit++; return 2.5, true },
		free: func(context.Context, string) (uint64, error) {
			c.frees++
			return uint64(100+c.frees) << 30, c.freeErr
		},
	}}
	return c
}

func TestMeterReadsOnlyWhatCanChange(t *testing.T) {
	m := newCountingMeter()
	steps := []struct {
		advance                    time.Duration
		cpus, memory, limit, frees int
		free                       uint64
	}{
		{0, 1, 1, 1, 1, 101 << 30},                      // first: everything
		{0, 1, 1, 1, 1, 101 << 30},                      // same instant: nothing
		{999 * time.Millisecond, 1, 1, 1, 1, 101 << 30}, // under a second: nothing
		{time.Millisecond, 1, 1, 2, 2, 102 << 30},       // a second old: limit and disk, never memory
		{time.Hour, 1, 1, 3, 3, 103 << 30},
		{-time.Hour, 1, 1, 4, 4, 104 << 30}, // the clock went back: read again
	}
	for i, s := range steps {
		m.clock = m.clock.Add(s.advance)
		info, err := m.Measure(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if m.cpus != s.cpus || m.memory != s.memory || m.limit != s.limit || m.frees != s.frees {
			t.Errorf("step %d: read cpus %d memory %d limit %d disk %d times, want %d %d %d %d",
				i, m.cpus, m.memory, m.limit, m.frees, s.cpus, s.memory, s.limit, s.frees)
		}
		want := Info{CPUCount: 8, EffectiveCPUCores: 2.5, TotalMemoryBytes: 16 << 30, AvailableDiskBytes: s.free}
		if info != want {
			t.Errorf("step %d: %+v, want %+v", i, info, want)
		}
	}
}

func TestMeterKeepsNoFailure(t *testing.T) {
	m := newCountingMeter()
	m.freeErr = errors.New("disk gone")
	if _, err := m.Measure(t.Context()); err == nil {
		t.Fatal("a failed disk reading gave a measurement")
	}
	m.freeErr = nil
	info, err := m.Measure(t.Context())
	if err != nil || info.AvailableDiskBytes != 102<<30 || m.frees != 2 {
		t.Fatalf("after a failure: %+v %v, %d disk readings", info, err, m.frees)
	}
}

// TestMeterCountsCPUs: the real probe finds at least the CPUs this
// process may run on.
func TestMeterCountsCPUs(t *testing.T) {
	n, err := NewMeter(t.TempDir()).probe.cpus(context.Background())
	if err != nil {
		t.Fatalf("count CPUs: %v", err)
	}
	if n < runtime.NumCPU() {
		t.Errorf("counted %d CPUs, fewer than the %d this process may use", n, runtime.NumCPU())
	}
}
