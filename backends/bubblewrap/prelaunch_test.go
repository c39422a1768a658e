//go:build linux

package bubblewrap

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"sandboxdesk/backends"
)

// TestPrelaunchGate: a launcher forked ahead of its plan starts nothing
// unless the controller sends it a whole plan. A controller that ends or
// gives up first closes its side, and the launcher ends; a plan that
// does not bring the descriptors it names is refused. A whole plan runs
// its command with those descriptors at 3 onwards, the log as stdout and
// stderr, and nothing else.
func TestPrelaunchGate(t *testing.T) {
	b, dir := rootBackendForTest(t)
	var files []*os.File
	for _, name := range []string{"a", "b"} {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		files = append(files, f)
	}
	// as the launcher's user (nobody), the script can only tell through
	// its stdout, the log
	script := `echo ran; readlink /proc/$$/fd/3 /proc/$$/fd/4; ls /proc/$$/fd | tr '\n' ' '`
	plan, _ := json.Marshal(launchPlan{UID: 65534, GID: 65534})
	args := []string{"/proc/self/exe", launchCommand, string(plan), "/bin/sh", "-c", script}
	for _, c := range []struct {
		name string
		send func(*prelaunched, *os.File) error
		want string // the log; "" when nothing ran
	}{
		{"the controller's side closes", func(p *prelaunched, _ *os.File) error { return p.plan.Close() }, ""},
		{"descriptors missing", func(p *prelaunched, log *os.File) error {
			msg, _ := json.Marshal(planMessage{Plan: plan, Bwrap: args[3:], Files: 2})
			return unix.Sendmsg(int(p.plan.Fd()), msg, unix.UnixRights(int(log.Fd())), nil, 0)
		}, ""},
		{"a whole plan", func(p *prelaunched, log *os.File) error { return p.send(args, files, log) },
			"ran\n" + files[0].Name() + "\n" + files[1].Name() + "\n0 1 2 3 4 "},
	} {
		t.Run(c.name, func(t *testing.T) {
			log, err := os.Create(filepath.Join(dir, "log"))
			if err != nil {
				t.Fatal(err)
			}
			defer log.Close()
			p, err := b.prelaunch()
			if err != nil {
				t.Fatal(err)
			}
			defer p.abort()
			if err := c.send(p, log); err != nil {
				t.Fatal(err)
			}
			select {
			case <-p.sb.exited:
			case <-time.After(time.Minute): // a deadline, not a timing
				t.Fatal("the launcher did not end")
			}
			got, _ := os.ReadFile(log.Name())
			if c.want == "" {
				if p.sb.reason != "the sandbox's first process exited with status 125" || len(got) > 0 {
					t.Errorf("the launcher ended with %q and wrote %q, want status 125 and nothing", p.sb.reason, got)
				}
				return
			}
			if string(got) != c.want {
				t.Errorf("the command wrote %q, want %q", got, c.want)
			}
		})
	}
}

// TestFailedStartKeepsItsLauncher: a start that fails before its plan (a
// sandbox folder that cannot be made) leaves its launcher as the spare,
// and the next start runs in it: no launcher is paid for twice.
func TestFailedStartKeepsItsLauncher(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a launcher runs for a root controller")
	}
	r := newRig(t)
	s := r.spec("fails")
	s.Network = backends.NetworkOff
	// the sandbox's folder inside a file: its preparation fails
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s.StateDir = filepath.Join(file, s.ID)
	var pids []int
	r.b.mu.Lock()
	r.b.launched = func(pid int) { pids = append(pids, pid) }
	r.b.mu.Unlock()
	if _, err := r.b.Start(t.Context(), s); err == nil || !strings.Contains(err.Error(), "prepare") {
		t.Fatalf("a start into a file: %v, want a failure to prepare", err)
	}
	r.b.mu.Lock()
	forked, spare := len(pids), r.b.spare
	r.b.mu.Unlock()
	if forked != 1 || spare == nil {
		t.Fatalf("the failed start forked %d launchers and kept %v ready, want 1 kept", forked, spare)
	}
	if p, err := spare.wait(); err != nil || p.sb.pid.Pid != pids[0] {
		t.Fatalf("the launcher kept ready is not the failed start's (pid %d): %v", pids[0], err)
	}
	good := r.spec("good")
	good.Network = backends.NetworkOff
	r.start(good, 256)
	if sb, ok := r.b.get(good.ID); !ok || sb.pid.Pid != pids[0] {
		t.Errorf("the next start did not run in the launcher the failed start kept (pid %d)", pids[0])
	}
}

// TestReleaseEndsALauncherNotKept: a launcher that had no plan and cannot
// be the spare (there is one) is ended and reaped, no zombie left.
func TestReleaseEndsALauncherNotKept(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a launcher runs for a root controller")
	}
	r := newRig(t)
	r.b.keepSpare()
	extra := r.b.prelaunchAsync(false)
	p, err := extra.wait()
	if err != nil {
		t.Fatal(err)
	}
	r.b.release(extra)
	r.b.mu.Lock()
	kept := r.b.spare != extra
	r.b.mu.Unlock()
	if !kept {
		t.Error("release replaced the spare there was")
	}
	if err := unix.Kill(p.sb.pid.Pid, 0); err == nil {
		stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.sb.pid.Pid))
		t.Errorf("release left the launcher: %s", stat)
	}
}

// TestSpareLauncher: a root start leaves a launcher ready, and the next
// start runs in it; one that was killed meanwhile is replaced, and the
// start goes on.
func TestSpareLauncher(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a launcher runs for a root controller")
	}
	r := newRig(t)
	spare := func() *prelaunched {
		t.Helper()
		r.b.mu.Lock()
		pl := r.b.spare
		r.b.mu.Unlock()
		if pl == nil {
			t.Fatal("no launcher is kept ready after a start")
		}
		p, err := pl.wait()
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	start := func(name string) *sandbox {
		t.Helper()
		s := r.spec(name)
		s.Network = backends.NetworkOff
		r.start(s, 256)
		sb, ok := r.b.get(s.ID)
		if !ok {
			t.Fatalf("%s does not run", name)
		}
		return sb
	}
	start("first")
	ready := spare()
	if sb := start("second"); sb.pid != ready.sb.pid {
		t.Errorf("the second start ran in pid %d, not in the launcher kept ready, %d", sb.pid.Pid, ready.sb.pid.Pid)
	}
	killed := spare()
	killed.sb.proc.Kill()
	<-killed.sb.exited
	if sb := start("third"); sb.pid == killed.sb.pid {
		t.Errorf("the third start took the killed launcher, pid %d", sb.pid.Pid)
	}
}

// TestLauncherMountsAtItsPlan: a launcher makes its mount namespace when
// its plan comes, not when it was forked: one kept ready for minutes still
// sees what the host mounted meanwhile (a disk the workspace is on).
func TestLauncherMountsAtItsPlan(t *testing.T) {
	_, p, log := launcherForTest(t)
	defer p.abort()
	disk, err := os.MkdirTemp("", "sandboxdesk-disk-") // nobody passes through it
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(disk)
	if err := os.Chmod(disk, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("disk", disk, "tmpfs", 0, "mode=0755"); err != nil {
		t.Fatal(err)
	}
	defer unix.Unmount(disk, unix.MNT_DETACH)
	if err := os.WriteFile(filepath.Join(disk, "file"), []byte("on the disk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	plan, _ := json.Marshal(launchPlan{UID: 65534, GID: 65534})
	if err := p.send([]string{"/proc/self/exe", launchCommand, string(plan), "/bin/cat", filepath.Join(disk, "file")}, nil, log); err != nil {
		t.Fatal(err)
	}
	<-p.sb.exited
	if got, _ := os.ReadFile(log.Name()); string(got) != "on the disk\n" {
		t.Errorf("the launcher saw %q, not the disk mounted after its fork", got)
	}
}

// TestWaitingLauncherIsWaitedFor: a pid file names the launcher a moment
// before it becomes bwrap; read in that moment (a controller that ended
// there, and the next one adopting), it is the sandbox, not a stranger
// whose record is dropped while the sandbox starts beside it.
func TestWaitingLauncherIsWaitedFor(t *testing.T) {
	_, p, log := launcherForTest(t)
	defer func() {
		unix.Kill(-p.sb.pid.Pid, unix.SIGKILL) // its session: the shell and its sleep
		<-p.sb.exited
	}()
	plan, _ := json.Marshal(launchPlan{UID: 65534, GID: 65534})
	args := []string{"/proc/self/exe", launchCommand, string(plan), "/bin/sh", "-c", "sleep 60; :", "/x/sandboxes/sb-waited/"}
	sent := make(chan error, 1)
	go func() {
		time.Sleep(100 * time.Millisecond) // after the look has begun; not a timing
		sent <- p.send(args, nil, log)
	}()
	if !p.sb.pid.alive("sb-waited") {
		t.Error("a launcher about to become the sandbox was taken for another process")
	}
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
}

// TestEndKillsLauncherBeforeItsExec: a launcher that has its plan but is
// held up before it becomes bwrap (here stopped; on a host, starved or in
// a slow mount) is ended all the same, though its command line names no
// sandbox yet: by the end of its sandbox (a failed start, a stop), and by
// a successor controller that finds its pid file. Left, it would start
// the sandbox once let go, with nothing watching it.
func TestEndKillsLauncherBeforeItsExec(t *testing.T) {
	defer func(w time.Duration) { execWait = w }(execWait)
	execWait = 10 * time.Millisecond // the look gives up on the launcher at once
	for _, c := range []struct {
		name string
		end  func(b *Backend, p *prelaunched)
	}{
		{"its controller ends it", func(b *Backend, p *prelaunched) { b.end(p.sb, nil) }},
		{"a successor finds it", func(b *Backend, p *prelaunched) {
			if err := writePidFile(p.sb.ctl, p.sb.pid); err != nil {
				t.Fatal(err)
			}
			next, err := New(Config{Root: b.root, Agent: os.Args[0]})
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := next.get(p.sb.id); ok {
				t.Error("a successor adopted a launcher that is not yet bwrap")
			}
			select {
			case <-p.sb.exited: // its parent, this process, reaps it
			case <-time.After(10 * time.Second): // a deadline, not a timing
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, p, log := launcherForTest(t)
			defer func() {
				unix.Kill(-p.sb.pid.Pid, unix.SIGKILL)
				unix.Kill(p.sb.pid.Pid, unix.SIGCONT)
				<-p.sb.exited
			}()
			if err := unix.Kill(p.sb.pid.Pid, unix.SIGSTOP); err != nil {
				t.Fatal(err)
			}
			p.sb.id, p.sb.ctl = "sb-held", b.ctlDir("sb-held")
			if err := os.MkdirAll(p.sb.ctl, 0o700); err != nil {
				t.Fatal(err)
			}
			plan, _ := json.Marshal(launchPlan{UID: 65534, GID: 65534})
			args := []string{"/proc/self/exe", launchCommand, string(plan), "/bin/sh", "-c", "echo ran", "/x/sandboxes/sb-held/"}
			if err := p.send(args, nil, log); err != nil {
				t.Fatal(err)
			}
			c.end(b, p)
			if !p.ended() {
				t.Fatal("a launcher held up before its exec was left to start the sandbox later")
			}
			if got, _ := os.ReadFile(log.Name()); len(got) > 0 {
				t.Errorf("the launcher ran its command: %q", got)
			}
		})
	}
}

// launcherForTest forks a launcher of a new root backend (see
// rootBackendForTest), and makes a file for its log.
func launcherForTest(t *testing.T) (*Backend, *prelaunched, *os.File) {
	t.Helper()
	b, dir := rootBackendForTest(t)
	log, err := os.Create(filepath.Join(dir, "log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { log.Close() })
	p, err := b.prelaunch()
	if err != nil {
		t.Fatal(err)
	}
	return b, p, log
}

// rootBackendForTest makes a backend on a new root in a folder of the
// test's, which it returns too. The test is skipped unless it runs as
// root: only a root backend has launchers.
func rootBackendForTest(t *testing.T) (*Backend, string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a launcher runs for a root controller")
	}
	dir := t.TempDir()
	b, err := New(Config{Root: filepath.Join(dir, "root"), Agent: os.Args[0]})
	if err != nil {
		t.Fatal(err)
	}
	return b, dir
}

// TestHostileSpareHoldsNoSweep: the next launcher, forked in the same
// tick of the clock as the sandbox's own (they share a start time), is
// not taken for the sandbox's launcher on its way to bwrap: it waits for
// a plan as long as its controller runs, and a sweep that waited for it
// would hold up the end of every sandbox behind it.
func TestHostileSpareHoldsNoSweep(t *testing.T) {
	b, _ := rootBackendForTest(t)
	defer func(w time.Duration) { execWait = w }(execWait)
	execWait = time.Hour
	var own, spare *prelaunched
	for range 100 {
		a, err := b.prelaunch()
		if err != nil {
			t.Fatal(err)
		}
		c, err := b.prelaunch()
		if err != nil {
			t.Fatal(err)
		}
		if a.sb.pid.StartTime == c.sb.pid.StartTime {
			own, spare = a, c
			break
		}
		a.abort()
		c.abort()
	}
	if own == nil {
		t.Skip("no two launchers forked in the same tick of the clock in 100 tries")
	}
	defer spare.abort()
	defer func() {
		unix.Kill(-own.sb.pid.Pid, unix.SIGKILL) // its session: the shell and its sleep
		<-own.sb.exited
	}()
	// the sandbox's own becomes the sandbox, as a start's does
	plan, _ := json.Marshal(launchPlan{UID: 65534, GID: 65534})
	args := []string{"/proc/self/exe", launchCommand, string(plan), "/bin/sh", "-c", "sleep 60; :", "/x/sandboxes/sb-swept/"}
	log, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	if err := own.send(args, nil, log); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		sweep("sb-swept", own.sb.pid)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(time.Minute): // a deadline, not a timing
		t.Fatalf("a sweep waits for pid %d, the next launcher, as for its sandbox's own", spare.sb.pid.Pid)
	}
}
