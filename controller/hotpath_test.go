package controller

import (
	"testing"

	"sandboxdesk/backends/testvm"
	"sandboxdesk/ipc"
)

// TestReusingCreateMeasuresNothing: a create that finds its sandbox
// running, holding what is asked, looks it up and replies; the host is
// not measured (a measurement is what a decision needs, and it decides
// nothing).
func TestReusingCreateMeasuresNothing(t *testing.T) {
	tests := []struct {
		name  string
		first ipc.CreateRequest
		again ipc.CreateRequest
	}{
		{"defaults", ipc.CreateRequest{Name: "w"}, ipc.CreateRequest{Name: "w"}},
		{"own memory", ipc.CreateRequest{Name: "w", MemoryMiB: mib(2048)}, ipc.CreateRequest{Name: "w", MemoryMiB: mib(1024)}},
		{"asks what the default gave", ipc.CreateRequest{Name: "w"}, ipc.CreateRequest{Name: "w", MemoryMiB: mib(256), CPUs: intp(1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := openEnv(t, testvm.Config{Processes: true})
			first := e.create(tt.first)
			e.measures.Store(0)
			again := e.create(tt.again)
			if again.ID != first.ID {
				t.Fatalf("not reused: %s -> %s", first.ID, again.ID)
			}
			if n := e.measures.Load(); n != 0 {
				t.Errorf("a reusing create measured the host %d times, want 0", n)
			}
		})
	}
}

// TestStoppedReuseMeasuresOnce: a reuse that starts the sandbox decides
// its memory, and every decision of that create reads one measurement.
func TestStoppedReuseMeasuresOnce(t *testing.T) {
	e := openEnv(t, testvm.Config{Processes: true})
	first := e.create(ipc.CreateRequest{Name: "w"})
	if _, err := e.c.Stop(t.Context(), ipc.Ref{Name: "w"}); err != nil {
		t.Fatal(err)
	}
	e.measures.Store(0)
	again := e.create(ipc.CreateRequest{Name: "w"})
	if again.ID != first.ID || again.State != ipc.StateRunning {
		t.Fatalf("not reused and started: %s -> %s, %s", first.ID, again.ID, again.State)
	}
	if n := e.measures.Load(); n != 1 {
		t.Errorf("a create that starts its sandbox measured the host %d times, want 1", n)
	}
}
