//go:build linux

package bubblewrap

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestAliveThroughExec: a sandbox's bwrap is still its bwrap while the
// process that becomes it (the launcher, the start script) is in the
// middle of an exec, when the kernel shows it with no command line. Read
// as gone, a restarted controller would drop the record of a sandbox that
// runs, and the sweep would leave it running. The process here execs
// itself hundreds of times, its sandbox's folder always among its
// arguments, while alive is asked about it without pause.
func TestAliveThroughExec(t *testing.T) {
	const id = "sb-0123456789abcdef"
	mark := "/sandboxes/" + id + "/"
	script := `n=$1; if [ "$n" -gt 0 ]; then exec /bin/sh -c "$0" "$0" $((n-1)) "$2"; fi; exec /bin/sh -c 'sleep 5; :' done "$2"`
	cmd := exec.Command("/bin/sh", "-c", script, script, "300", mark)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	st, ok := startTime(cmd.Process.Pid)
	if !ok {
		t.Fatal("no start time for the process just started")
	}
	p := pidFile{Pid: cmd.Process.Pid, StartTime: st}
	asked := 0
	for {
		asked++
		if !p.alive(id) {
			t.Fatalf("after %d asks: alive says the process is gone while it runs (%q)", asked, cmdline(p.Pid))
		}
		if bytes.HasPrefix(cmdline(p.Pid), []byte("/bin/sh\x00-c\x00sleep 5")) {
			break // every exec done
		}
	}
	t.Logf("alive through 300 execs, asked %d times", asked)
}

func cmdline(pid int) []byte {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return b
}

// TestReadProc: readProc reads what os.ReadFile does, files longer than
// its first buffer included, and says when a file is not there.
func TestReadProc(t *testing.T) {
	for _, path := range []string{
		"/proc/self/cmdline",
		"/proc/self/stat",
		"/proc/self/status", // over 1 KiB
		"/proc/self/limits", // over 1 KiB, and unchanging
	} {
		got, err := readProc(path)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		// the files of the process itself that change as it runs: only
		// their first field stays (stat's pid; status's name, where the
		// first space comes after the state, running or not)
		if path == "/proc/self/stat" || path == "/proc/self/status" {
			if len(got) < len(want)/2 || !bytes.HasPrefix(got, want[:bytes.IndexAny(want, " \n")+1]) {
				t.Errorf("%s: read %q, os.ReadFile %q", path, got, want)
			}
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: read %d bytes %q, os.ReadFile %d bytes", path, len(got), got, len(want))
		}
	}
	if _, err := readProc("/proc/0/stat"); !os.IsNotExist(err) {
		t.Errorf("/proc/0/stat: %v, want a not-exist error", err)
	}
	if _, ok := startTime(os.Getpid()); !ok {
		t.Errorf("startTime of this process: not found")
	}
	if _, ok := startTime(-1); ok {
		t.Errorf("startTime of pid -1: found")
	}
}

// TestChildren: the kernel's list of a process's children and a look at
// every process of the host find the same ones; kill relies on either to
// find a sandbox's init.
func TestChildren(t *testing.T) {
	var want []int
	for range 2 {
		cmd := exec.Command("sleep", "30")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer cmd.Wait()
		defer cmd.Process.Kill()
		want = append(want, cmd.Process.Pid)
	}
	listed, ok := childrenListed(os.Getpid())
	if !ok {
		t.Log("this kernel keeps no list of children: only the look at every process is tried")
	}
	for _, got := range [][]int{children(os.Getpid()), childrenScanned(os.Getpid()), listed} {
		if !ok && got == nil {
			continue
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("children %v, want %v", got, want)
		}
	}
}

// emptyCommandLine is a program for a sandbox's python3: it points its
// command line at nothing with prctl(PR_SET_MM_MAP), which needs no
// privilege, says "empty" and sleeps, its stdout closed.
const emptyCommandLine = `import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
stat = open("/proc/self/stat").read()
f = [0, 0, 0] + stat[stat.rindex(")") + 2:].split()
n = lambda i: int(f[i])
class Map(ctypes.Structure):
    _fields_ = [(k, ctypes.c_uint64) for k in "start_code end_code start_data end_data start_brk brk start_stack arg_start arg_end env_start env_end auxv".split()] + [("auxv_size", ctypes.c_uint32), ("exe_fd", ctypes.c_uint32)]
libc.sbrk.restype = ctypes.c_void_p
m = Map(n(26), n(27), n(45), n(46), n(47), libc.sbrk(0), n(28), n(48), n(48), n(50), n(51), 0, 0, 0xffffffff)
PR_SET_MM, PR_SET_MM_MAP = 35, 14
if libc.prctl(PR_SET_MM, PR_SET_MM_MAP, ctypes.byref(m), ctypes.sizeof(m), 0) != 0:
    sys.exit("prctl: " + os.strerror(ctypes.get_errno()))
print("empty", flush=True)
os.close(1)
time.sleep(600)
`

// TestHostileEmptiedCommandLineHoldsNoSweep: code in a sandbox empties
// the command line of a process of its own. A sweep reads the command
// line of every process of the host started after its sandbox; taking
// that one for a process in the middle of an exec, it would wait for it
// (execWait, here longer than the test may run), and each such process,
// in any sandbox, would hold up the end of every other sandbox, and a
// restarted controller's whole backend (get sweeps under its lock).
func TestHostileEmptiedCommandLineHoldsNoSweep(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 on the host, so none in its image")
	}
	r := newRig(t)
	s := r.spec("emptied")
	r.start(s, 256)
	if err := os.WriteFile(filepath.Join(s.Workspace, "empty.py"), []byte(emptyCommandLine), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out := r.sh(s.ID, "{ python3 /workspace/empty.py 2>&1 & } | head -n1"); code != 0 || out != "empty\n" {
		t.Fatalf("emptying a command line: %d %q", code, out)
	}
	sb, ok := r.b.get(s.ID)
	if !ok {
		t.Fatal("the sandbox is not running")
	}
	var emptied []int
	for _, pid := range descendants(sb.pid.Pid) {
		comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		if string(comm) == "python3\n" && len(cmdline(pid)) == 0 {
			emptied = append(emptied, pid)
		}
	}
	if len(emptied) != 1 {
		t.Fatalf("found %d sandbox processes with an emptied command line, want 1", len(emptied))
	}
	// a sweep that waits for it does not end before the test must
	old := execWait
	execWait = 24 * time.Hour
	t.Cleanup(func() { execWait = old })
	done := make(chan struct{})
	go func() {
		// another sandbox's, started with this one: the process is its to read
		sweep("sb-0000000000000000", sb.pid)
		close(done)
	}()
	deadline, ok := t.Deadline()
	if !ok {
		<-done
		return
	}
	select {
	case <-done:
	case <-time.After(time.Until(deadline) - 10*time.Second):
		t.Fatalf("a sweep still waits for pid %d, which emptied its own command line, as for an exec", emptied[0])
	}
}
