//go:build linux

package bubblewrap

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestStopAsksPolitelyWhenSomethingRuns: a stop with a grace still asks
// the sandbox's processes to end (SIGTERM) before it kills them, now that
// an idle sandbox's stop skips the agent's call.
func TestStopAsksPolitelyWhenSomethingRuns(t *testing.T) {
	r := newRig(t)
	s := r.spec("w")
	r.start(s, 512)
	sb, ok := r.b.get(s.ID)
	if !ok {
		t.Fatal("the started sandbox is not running")
	}
	idle := sb.runsOnlyItself()
	if idle != (sb.cg != nil && sb.cg.v2+sb.cg.pids+sb.cg.memory != "") {
		t.Errorf("an idle sandbox runs only itself: %v, with cgroup %+v", idle, sb.cg)
	}
	script := `(trap 'echo bye > /workspace/bye; exit 0' TERM; echo up > /workspace/up; while :; do sleep 0.05; done) >/dev/null 2>&1 &`
	if code, out := r.sh(s.ID, script); code != 0 {
		t.Fatalf("background start: %d %q", code, out)
	}
	for i := 0; ; i++ {
		if _, err := os.Stat(filepath.Join(s.Workspace, "up")); err == nil {
			break
		}
		if i == 500 {
			t.Fatal("the background process never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if sb.runsOnlyItself() {
		t.Error("a sandbox with a background process runs only itself")
	}
	if _, err := r.b.Stop(t.Context(), s.ID, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(s.Workspace, "bye")); err != nil || string(b) != "bye\n" {
		t.Errorf("the background process was not asked to end: %q, %v", b, err)
	}
}

func TestOnlyItself(t *testing.T) {
	// monitor 10, init 11, agent 12; 13 another child of the init
	parents := map[int]int{10: 1, 11: 10, 12: 11, 13: 11, 14: 12}
	parent := func(pid int) int { return parents[pid] }
	for _, c := range []struct {
		procs []string
		want  bool
	}{
		{[]string{"10", "11", "12"}, true},
		{[]string{"12", "10", "11"}, true},
		{[]string{"10", "11", "12", "13"}, false}, // an orphan the init adopted
		{[]string{"10", "11", "12", "14"}, false}, // a command of the agent
		{[]string{"10", "11"}, false},             // no agent
		{[]string{"10", "11", "13"}, true},        // the init's one child
		{[]string{"11", "12", "14"}, false},       // no monitor
		{[]string{"10", "12", "14"}, false},       // no init
		{[]string{"10", "11", "11"}, false},
		{[]string{"10", "11", "x"}, false},
		{nil, false},
	} {
		if got := onlyItself(c.procs, 10, parent); got != c.want {
			t.Errorf("onlyItself(%v) = %v, want %v", c.procs, got, c.want)
		}
	}
	if onlyItself([]string{"10", "11", "12"}, 0, parent) {
		t.Error("onlyItself with no monitor pid says yes")
	}
}
