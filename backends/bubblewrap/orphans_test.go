//go:build linux

package bubblewrap

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"sandboxdesk/controller"
	"sandboxdesk/ipc"
)

const (
	createsRootEnv = "SANDBOXDESK_TEST_CREATES_ROOT"
	// orphanRunsEnv sets how many kill-and-restart runs
	// TestKilledDuringCreatesLeavesNoOrphans makes (5 by default; see
	// testdata/orphans.sh for a longer run).
	orphanRunsEnv = "SANDBOXDESK_ORPHAN_RUNS"
	concurrent    = 20
	// killWindow is when the kill may come: 20 creates take half a
	// second to a second here, so most kills land amid them, some after
	killWindow = time.Second
)

// runConcurrentCreates is a controller process that starts 20 sandboxes
// at once and is killed by the test at some moment of it.
func runConcurrentCreates(root string) int {
	ctx := context.Background()
	c, err := openController(ctx, root)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	n := concurrent
	if _, err := c.SetLimits(ctx, &n, &n); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("open")
	var wg sync.WaitGroup
	for i := range concurrent {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Create(ctx, ipc.CreateRequest{Name: "w" + strconv.Itoa(i), MemoryMiB: ptr(int64(128))})
			fmt.Println("done")
		}()
	}
	wg.Wait()
	select {}
}

// TestKilledDuringCreatesLeavesNoOrphans: a controller SIGKILLed at a
// random moment of 20 concurrent creates, then restarted on its root,
// knows every sandbox process of the root (none runs that it does not
// list as running, none runs twice), keeps every workspace and folder,
// and its database passes an integrity check.
func TestKilledDuringCreatesLeavesNoOrphans(t *testing.T) {
	newRig(t) // skips where bwrap is missing
	runs := 5
	if v := os.Getenv(orphanRunsEnv); v != "" {
		var err error
		if runs, err = strconv.Atoi(v); err != nil || runs < 1 {
			t.Fatalf("%s=%q: want a number of runs", orphanRunsEnv, v)
		}
	}
	root := t.TempDir()
	t.Cleanup(func() {
		// a failed run leaves no sandbox running behind the test
		for id := range rootProcesses(root) {
			sweep(id, pidFile{})
		}
	})
	kept := map[string]bool{} // workspaces holding a file the test put there
	for run := range runs {
		at := killChildDuringCreates(t, root)
		checkIntegrity(t, root)
		// a child forked at the kill holds the root's lock until its exec
		// closes it
		var c *controller.Controller
		settled(t, run, func() string {
			var err error
			if c, err = openController(t.Context(), root); err != nil {
				return fmt.Sprintf("reopen after a kill %s: %v", at, err)
			}
			return ""
		})
		settled(t, run, func() string { return unknownProcesses(t, c, root) })
		checkFolders(t, c, root, kept)

		// every name again: each is started once, never beside a tree
		// left from before the kill
		var wg sync.WaitGroup
		for i := range concurrent {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := c.Create(t.Context(), ipc.CreateRequest{Name: "w" + strconv.Itoa(i), MemoryMiB: ptr(int64(128))}); err != nil {
					t.Errorf("run %d: create w%d after the restart: %v", run, i, err)
				}
			}()
		}
		wg.Wait()
		if s := unknownProcesses(t, c, root); s != "" {
			logHistory(t, root)
			t.Fatalf("run %d: after creating every name again: %s", run, s)
		}
		for i := range concurrent {
			name := "w" + strconv.Itoa(i)
			if !kept[name] && os.WriteFile(filepath.Join(root, "workspaces", name, "keep"), []byte(name), 0o644) == nil {
				kept[name] = true
			}
		}
		if err := c.Shutdown(t.Context()); err != nil {
			t.Fatalf("run %d: shutdown: %v", run, err)
		}
		settled(t, run, func() string {
			if n := len(rootProcesses(root)); n > 0 {
				return fmt.Sprintf("%d sandbox processes of the root left after shutdown", n)
			}
			return ""
		})
		checkIntegrity(t, root)
		t.Logf("run %d: killed %s: no orphans, %d workspaces kept", run, at, len(kept))
	}
}

// killChildDuringCreates runs a controller process that makes 20
// sandboxes at once and SIGKILLs it at a random moment, and says when:
// how long after it opened the root, and how many creates had returned.
func killChildDuringCreates(t *testing.T, root string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), createsRootEnv+"="+root)
	cmd.Stderr = os.Stderr
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() || lines.Text() != "open" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child controller said %q", lines.Text())
	}
	var done atomic.Int32
	go func() {
		for lines.Scan() {
			done.Add(1)
		}
	}()
	at := time.Duration(rand.Int64N(int64(killWindow)))
	time.Sleep(at)
	cmd.Process.Signal(syscall.SIGKILL)
	n := done.Load()
	cmd.Wait()
	return fmt.Sprintf("%v after opening, %d of %d creates done", at.Round(time.Millisecond), n, concurrent)
}

// settled waits, with a generous deadline, until check finds nothing
// wrong: processes a killed controller left at its start gate end on
// their own, and the restarted controller hears of it.
func settled(t *testing.T, run int, check func() string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		s := check()
		if s == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %d: %s", run, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// unknownProcesses describes the sandbox processes of root that c does
// not list as running, and the sandboxes that run more than one tree.
func unknownProcesses(t *testing.T, c interface {
	List(context.Context, string) ([]ipc.Sandbox, error)
}, root string) string {
	list, err := c.List(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	running := map[string]bool{}
	listed := map[string]ipc.Sandbox{}
	for _, sb := range list {
		running[sb.ID] = sb.State == ipc.StateRunning
		listed[sb.ID] = sb
	}
	var wrong []string
	for id, tops := range rootProcesses(root) {
		if !running[id] {
			sb, ok := listed[id]
			state := "not listed"
			if ok {
				state = fmt.Sprintf("%s %s (%s)", sb.Name, sb.State, sb.Error)
			}
			wrong = append(wrong, fmt.Sprintf("%s runs (%s) but is %s", id, describe(tops), state))
		} else if len(tops) > 1 {
			wrong = append(wrong, fmt.Sprintf("%s runs %d trees (%s)", id, len(tops), describe(tops)))
		}
	}
	return strings.Join(wrong, "; ")
}

// describe names each process: its pid, state, start time and command.
func describe(pids []int) string {
	var out []string
	for _, pid := range pids {
		cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		st, _ := startTime(pid)
		state := "?"
		if i := bytes.LastIndexByte(stat, ')'); i >= 0 {
			if f := strings.Fields(string(stat[i+1:])); len(f) > 1 {
				state = f[0] + " ppid " + f[1]
			}
		}
		line := strings.ReplaceAll(string(cmd), "\x00", " ")
		if len(line) > 160 {
			line = line[:160] + "..."
		}
		out = append(out, fmt.Sprintf("pid %d %s started %d: %s", pid, state, st, line))
	}
	return strings.Join(out, "; ")
}

// rootProcesses finds the process trees of root's sandboxes: by sandbox
// ID, the processes that name its folder on their command line (the
// start script, the launcher, bwrap) and whose parent does not. A process
// caught in an exec shows no command line for a moment; it is read again
// (readCmdline), or a tree mid-start would pass for no tree.
func rootProcesses(root string) map[string][]int {
	ids, _ := os.ReadDir(filepath.Join(root, "sandboxes"))
	owner := map[int]string{}
	parent := map[int]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, alive := startTime(pid)
		if !alive {
			continue
		}
		// never misses a sandbox's process in the middle of an exec
		cmd, _ := readCmdline(pid, st, false)
		stat, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		for _, id := range ids {
			if bytes.Contains(cmd, []byte("/sandboxes/"+id.Name()+"/")) {
				owner[pid] = id.Name()
				if f := strings.Fields(string(stat[i+1:])); len(f) > 1 {
					parent[pid], _ = strconv.Atoi(f[1])
				}
			}
		}
	}
	tops := map[string][]int{}
	for pid, id := range owner {
		if owner[parent[pid]] != id {
			tops[id] = append(tops[id], pid)
		}
	}
	return tops
}

// checkFolders: every sandbox listed has its folder and its workspace,
// and every workspace the test wrote into still holds what it wrote.
func checkFolders(t *testing.T, c interface {
	List(context.Context, string) ([]ipc.Sandbox, error)
}, root string, kept map[string]bool) {
	t.Helper()
	list, err := c.List(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, sb := range list {
		listed[sb.Name] = true
		for _, dir := range []string{filepath.Join(root, "sandboxes", sb.ID), filepath.Join(root, "workspaces", sb.Name)} {
			if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
				t.Errorf("%s is listed (%s) without its folder %s: %v", sb.Name, sb.State, dir, err)
			}
		}
	}
	for name := range kept {
		if !listed[name] {
			t.Errorf("%s, whose workspace held a file, is no longer listed", name)
		}
		if b, err := os.ReadFile(filepath.Join(root, "workspaces", name, "keep")); err != nil || string(b) != name {
			t.Errorf("workspace of %s lost its file: %q, %v", name, b, err)
		}
	}
}

// logHistory logs the events the root's database kept, oldest first: what
// the controllers did to each sandbox, for a failure to be read.
func logHistory(t *testing.T, root string) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(root, "state.db")+"?mode=ro")
	if err != nil {
		t.Log(err)
		return
	}
	defer db.Close()
	rows, err := db.Query("SELECT at, id, sandbox, state, message FROM events ORDER BY seq")
	if err != nil {
		t.Log(err)
		return
	}
	defer rows.Close()
	for rows.Next() {
		var at int64
		var id, name, state, msg string
		if rows.Scan(&at, &id, &name, &state, &msg) == nil {
			t.Logf("event %d %s %s %s: %s", at, id, name, state, msg)
		}
	}
}

// checkIntegrity runs SQLite's own integrity check on the root's database.
func checkIntegrity(t *testing.T, root string) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(root, "state.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var res string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&res); err != nil || res != "ok" {
		t.Fatalf("integrity check of state.db: %q, %v", res, err)
	}
}
