//go:build linux

package bubblewrap

import (
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestDefaultPids(t *testing.T) {
	tests := []struct {
		name               string
		pidMax, threadsMax int64
		want               int64
	}{
		{name: "a small VM: pid_max 32768", pidMax: 32768, threadsMax: 192724, want: 4096},
		{name: "a modern default: pid_max 4194304", pidMax: 4194304, threadsMax: 1 << 20, want: 4096},
		{name: "threads-max the smaller", pidMax: 32768, threadsMax: 8192, want: 1024},
		{name: "a tiny host keeps the floor", pidMax: 300, threadsMax: 0, want: 64},
		{name: "nothing readable", want: 4096},
	}
	for _, tt := range tests {
		if got := defaultPids(tt.pidMax, tt.threadsMax); got != tt.want {
			t.Errorf("%s: %d, want %d", tt.name, got, tt.want)
		}
	}
}

// TestHostileForkBomb: a fork bomb inside a sandbox stops at the
// sandbox's process limit; the host goes on answering, and the limit's
// refusals reach the controller as a notice with a count.
func TestHostileForkBomb(t *testing.T) {
	r := newRig(t)
	s := r.spec("bomb")
	const limit = 128
	s.Pids = limit
	got := r.start(s, 512)
	sb, _ := r.b.get(s.ID)
	if got.PidsLimit == 0 {
		t.Skip("no pids cgroup this user may write (cgroup v1 hierarchies are root's only here): the process limit is not enforced, and inspect says so")
	}
	if got.PidsLimit != limit {
		t.Fatalf("process limit %d, asked %d", got.PidsLimit, limit)
	}
	// first a bounded burst, so a limit that does not hold costs the host
	// a few hundred sleeps rather than its pid space (sh gives up at the
	// first fork refused)
	r.sh(s.ID, "n=0; while [ $n -lt 300 ]; do sleep 3 & n=$((n+1)); done")
	if n := sb.cg.current(); n == 0 || n > limit {
		t.Fatalf("%d processes inside a sandbox limited to %d: the limit does not hold", n, limit)
	}
	time.Sleep(4 * time.Second) // the sleeps end, giving their pids back
	// then the real thing, ended by timeout
	r.sh(s.ID, `timeout -s KILL 10 sh -c 'b() { b | b & }; b; wait' 2>/dev/null; true`)
	if err := exec.CommandContext(t.Context(), "true").Run(); err != nil {
		t.Fatalf("the host no longer starts a process after the bomb: %v", err)
	}
	if hits := sb.cg.pidsHits(); hits == 0 {
		t.Error("the pids cgroup refused nothing: the bomb never reached the limit")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !strings.Contains(strings.Join(r.events, "\n"), "process limit:") {
		t.Errorf("no notice of the limit's refusals, only %q", r.events)
	}
}
