//go:build linux

package bubblewrap

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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

// TestEveryProcessInEveryCgroup: bwrap, the sandbox's init, its agent and
// what the agent runs, each with all its threads, are in every cgroup of
// the sandbox (the memory, cpu and pids folders of cgroup v1, or the one of
// v2). A process is in one only when the first process of the sandbox
// joined it before it started anything: on v1 the launcher moves only its
// own thread, the one that must then execute bwrap.
func TestEveryProcessInEveryCgroup(t *testing.T) {
	r := newRig(t)
	s := r.spec("cg")
	s.CPUs, s.Pids = 1, 256 // so that the cpu and pids folders are made
	r.start(s, 256)
	sb, ok := r.b.get(s.ID)
	if !ok {
		t.Fatal("the sandbox is not running")
	}
	if code, out := r.sh(s.ID, "sleep 60 & echo started"); code != 0 {
		t.Fatalf("background start: %d %q", code, out)
	}
	tree := descendants(sb.pid.Pid)
	if len(tree) < 4 { // bwrap, init, the agent, sleep
		t.Fatalf("the sandbox's processes are %v, want bwrap, its init, the agent and sleep", tree)
	}
	joined := 0
	for _, dir := range sb.cg.dirs() {
		if dir == "" {
			continue
		}
		joined++
		// v1 lists threads in tasks; v2 processes in cgroup.procs
		file, threads := filepath.Join(dir, "tasks"), true
		if dir == sb.cg.v2 {
			file, threads = filepath.Join(dir, "cgroup.procs"), false
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		in := map[string]bool{}
		for _, f := range strings.Fields(string(data)) {
			in[f] = true
		}
		for _, pid := range tree {
			ids := []string{strconv.Itoa(pid)}
			if threads {
				tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
				ids = ids[:0]
				for _, task := range tasks {
					ids = append(ids, task.Name())
				}
			}
			for _, id := range ids {
				if !in[id] {
					cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
					t.Errorf("%d (task %s, %q) is not in %s", pid, id, strings.ReplaceAll(string(cmd), "\x00", " "), dir)
				}
			}
		}
	}
	if joined == 0 {
		t.Skip("no cgroup this user may write: the sandbox has none to be in")
	}
}

// descendants is pid and every process below it.
func descendants(pid int) []int {
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		out = append(out, children(out[i])...)
	}
	return out
}

// TestJoinScriptJoinsEveryCgroup: the start script of a controller that is
// not root joins each cgroup it is given before it runs the command, which
// then finds itself in all of them. (Run by root here: an ordinary user
// seldom has a cgroup of its own to write.)
func TestJoinScriptJoinsEveryCgroup(t *testing.T) {
	id := "sb-test" + randomHex(5)
	cg, _, _ := makeCgroup(id, 256, 1, 64)
	defer cg.remove()
	files := cg.joinFiles()
	if len(files) == 0 {
		t.Skip("no cgroup this user may write")
	}
	args := append(append([]string{"-c", joinScript, "sh"}, files...), "--", "cat", "/proc/self/cgroup")
	cmd := exec.Command("/bin/sh", args...)
	cmd.Stdin = strings.NewReader("go\n")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	in := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if strings.HasSuffix(line, "/sandboxdesk-"+id) {
			in++
		}
	}
	if in != len(files) {
		t.Errorf("the command is in %d of the sandbox's %d cgroups:\n%s", in, len(files), out)
	}
}
