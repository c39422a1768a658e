//go:build linux

package bubblewrap

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"testing"
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
		// the files of the process itself that change as it runs
		if path == "/proc/self/stat" || path == "/proc/self/status" {
			if len(got) < len(want)/2 || !bytes.HasPrefix(got, want[:bytes.IndexByte(want, ' ')+1]) {
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
