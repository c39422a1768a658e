//go:build linux

package bubblewrap

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
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
