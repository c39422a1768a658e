package controller

import (
	"fmt"
	"testing"

	"sandboxdesk/backends/testvm"
	"sandboxdesk/ipc"
)

// TestHeldByTable pins what a sandbox holds for the reuse rule, for every
// capacity in each of the three cases: its own value; running, what its
// start gave it; stopped, what a start would give it now.
func TestHeldByTable(t *testing.T) {
	e := newEnv(t, withHost(16, 8)) // alone: 8 GiB, 4 CPUs, 8 GiB disk
	running := ipc.StateRunning
	tests := []struct {
		name  string
		r     record
		setup func(e *env)
		want  held
	}{
		{"own values win, running", record{MemoryMiB: 256, CPUs: 1, DiskMiB: 1024, State: running, ReservedMiB: 4096, HeldCPUs: 4, HeldDiskMiB: 8192},
			nil, held{256, 1, 1024}},
		{"own values win, stopped", record{MemoryMiB: 3072, CPUs: 3, DiskMiB: 2048, State: ipc.StateStopped}, nil, held{3072, 3, 2048}},
		{"running VM: its reservation", record{State: running, ReservedMiB: 4096, HeldCPUs: 3, HeldDiskMiB: 16384}, nil, held{4096, 3, 16384}},
		{"running process: its enforced limit", record{State: running, LimitMiB: 8192, HeldCPUs: 2, HeldDiskMiB: 8192}, nil, held{8192, 2, 8192}},
		{"stopped, alone: a start now", record{State: ipc.StateStopped}, nil, held{8192, 4, 8192}},
		{"suspended, alone: a start now", record{State: ipc.StateSuspended}, nil, held{8192, 4, 8192}},
		{"stopped beside one holding 8 GiB: a start now", record{State: ipc.StateStopped},
			func(e *env) { e.create(ipc.CreateRequest{Name: "big", MemoryMiB: mib(8192)}) }, held{2048, 4, 8192}},
		{"stopped with a Settings default", record{State: ipc.StateStopped}, func(e *env) {
			if err := e.c.SetDefaultMemory(t.Context(), mib(5120)); err != nil {
				t.Fatal(err)
			}
		}, held{5120, 4, 8192}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := e
			if tt.setup != nil {
				e = newEnv(t, withHost(16, 8))
				tt.setup(e)
			}
			got := e.c.heldBy(t.Context(), &tt.r, e.c.measureOnce(t.Context()))
			if got != tt.want {
				t.Fatalf("held %+v, want %+v", got, tt.want)
			}
			// each capacity: asking what it holds reuses, one more rebuilds
			r := tt.r
			r.Backend, r.Image = testvm.Name, "base"
			asks := map[string]func(s *shape, more int64){
				"memory": func(s *shape, more int64) { s.MemoryMiB = got.memoryMiB + more },
				"CPUs":   func(s *shape, more int64) { s.CPUs = got.cpus + int(more) },
				"disk":   func(s *shape, more int64) { s.DiskMiB = got.diskMiB + more },
			}
			for what, ask := range asks {
				for more, want := range map[int64]bool{0: true, 1: false} {
					s := shape{Backend: testvm.Name, Image: imageOf("base", "")}
					ask(&s, more)
					if ok, why := serves(&r, s, e.clock.Now(), got); ok != want {
						t.Errorf("%s asked %s: serves %v (%s), want %v", what, fmt.Sprint(more), ok, why, want)
					}
				}
			}
		})
	}
}

// TestReuseOnTheDefaultLimit is reference 002's own example in reverse: a
// process sandbox on the default limit serves a small ask; a bigger one
// rebuilds; a stopped one compares with what a start would give now.
func TestReuseOnTheDefaultLimit(t *testing.T) {
	e := openEnv(t, testvm.Config{Processes: true}, withHost(16, 8))
	// x ran alone on an 8 GiB limit, then stopped
	x := e.create(ipc.CreateRequest{Name: "x"})
	if x.MemoryLimitMiB != 8192 {
		t.Fatalf("default limit alone %d, want 8192", x.MemoryLimitMiB)
	}
	if _, err := e.c.Stop(t.Context(), ipc.Ref{Name: "x"}); err != nil {
		t.Fatal(err)
	}

	w := e.create(ipc.CreateRequest{Name: "w"})
	if w.MemoryLimitMiB != 8192 {
		t.Fatalf("default limit %d, want 8192", w.MemoryLimitMiB)
	}
	small := e.create(ipc.CreateRequest{Name: "w", MemoryMiB: mib(256)})
	if small.ID != w.ID {
		t.Errorf("on an 8 GiB limit, asked 256 MiB: rebuilt (%s -> %s), want reused", w.ID, small.ID)
	}
	huge := e.create(ipc.CreateRequest{Name: "w", MemoryMiB: mib(16384)})
	if huge.ID == w.ID {
		t.Fatal("on an 8 GiB limit, asked 16 GiB: reused, want rebuilt")
	}

	// stopped: beside running w a start now gives x half the budget,
	// whatever it held when it last ran
	if d := e.defaults(); d.MemoryMiB != 4096 {
		t.Fatalf("today's default beside one running: %d, want 4096", d.MemoryMiB)
	}
	if got := e.create(ipc.CreateRequest{Name: "x", MemoryMiB: mib(8192)}); got.ID == x.ID {
		t.Errorf("stopped, today's default 4 GiB, asked 8 GiB: reused on what it once held, want rebuilt")
	}
	y := e.create(ipc.CreateRequest{Name: "y"})
	if _, err := e.c.Stop(t.Context(), ipc.Ref{Name: "y"}); err != nil {
		t.Fatal(err)
	}
	if got := e.create(ipc.CreateRequest{Name: "y", MemoryMiB: mib(2048)}); got.ID != y.ID {
		t.Errorf("stopped, today's default covers 2 GiB: rebuilt, want reused")
	}
}
