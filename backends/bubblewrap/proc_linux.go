package bubblewrap

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// ids is a host user and its group.
type ids struct{ uid, gid int }

// workspacePerson is whose the workspaces are on the host: the user who
// runs the controller, or, for root, the user who ran sudo (root itself
// when no one did).
func workspacePerson() ids {
	if os.Geteuid() != 0 {
		return ids{uid: os.Getuid(), gid: os.Getgid()}
	}
	uid, err := strconv.Atoi(os.Getenv("SUDO_UID"))
	if err != nil || uid <= 0 {
		return ids{}
	}
	gid, err := strconv.Atoi(os.Getenv("SUDO_GID"))
	if err != nil || gid <= 0 {
		gid = uid
	}
	return ids{uid: uid, gid: gid}
}

// alive reports whether p is still the bwrap of sandbox id: the same
// pid, started at the same time, with the sandbox's folder
// (ROOT/sandboxes/ID, or its alias) on its command line, which is how a
// sandbox is marked with the root it belongs to.
func (p pidFile) alive(id string) bool {
	st, ok := startTime(p.Pid)
	if !ok || st != p.StartTime {
		return false
	}
	cmdline, ok := readCmdline(p.Pid, p.StartTime, true)
	return ok && bytes.Contains(cmdline, []byte("/sandboxes/"+id+"/"))
}

// waitingLauncher reports whether cmdline is that of a launcher waiting
// for its plan.
func waitingLauncher(cmdline []byte) bool {
	args := bytes.Split(cmdline, []byte{0})
	return len(args) > 1 && string(args[1]) == prelaunchCommand
}

// execWait bounds how long readCmdline waits for an exec to finish (a
// variable for a test).
var execWait = 5 * time.Second

// readCmdline reads the command line of the process pid that started at
// since. A process in the middle of an exec (the launcher or the start
// script becoming bwrap, the moment a sandbox starts) has an empty one:
// the kernel has switched its memory but not yet laid out its arguments,
// and on a busy host it may stay so for many milliseconds. Taken as it
// reads then, a running sandbox looks like no sandbox: a new controller
// would drop its record and a sweep would leave it running. So an empty
// command line is read again, for as long as the same process lives, until
// the exec is through. Kernel threads, which never have one, and processes
// on their way out, which have let go of their memory and with it their
// command line, are not waited for: the NAT helper of a sandbox being
// stopped may take many milliseconds to end.
//
// With launching set, so is the command line of a launcher kept ready
// (see prelaunch), which names no sandbox: a pid file names it from just
// before its plan is sent until it becomes bwrap, a moment later, or,
// when its controller ended in between, until it ends too, at once. Only
// the process of a pid file is read so: a launcher waits for its plan as
// long as its controller runs.
func readCmdline(pid int, since uint64, launching bool) ([]byte, bool) {
	deadline := time.Now().Add(execWait)
	for delay := 100 * time.Microsecond; ; delay = min(delay*2, 10*time.Millisecond) {
		b, err := readProc(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil {
			return nil, false
		}
		if (len(b) > 0 && !(launching && waitingLauncher(b))) || noCommandLine(pid) || time.Now().After(deadline) {
			return b, true
		}
		time.Sleep(delay)
		if st, ok := startTime(pid); !ok || st != since {
			return nil, false
		}
	}
}

// readProc reads a file of /proc with plain system calls: open, read
// until the end, close. os.ReadFile also offers each file to Go's poller,
// which refuses it, three more calls per file; a sweep reads two files
// of every process on the host, at every stop.
func readProc(path string) ([]byte, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	b := make([]byte, 0, 1024)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := unix.Read(fd, b[len(b):cap(b)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "read", Path: path, Err: err}
		}
		if n == 0 {
			return b, nil
		}
		b = b[:len(b)+n]
	}
}

// statFields is /proc/PID/stat after the command name, which may hold
// spaces and parentheses: field 3 (the state) is the first.
func statFields(pid string) ([]string, bool) {
	b, err := readProc("/proc/" + pid + "/stat")
	if err != nil {
		return nil, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil, false
	}
	return strings.Fields(string(b[i+1:])), true
}

// Flags of a process in /proc/PID/stat (PF_* of the kernel's sched.h).
const (
	pfExiting = 0x00000004
	pfKthread = 0x00200000
)

// noCommandLine reports whether pid will not have a command line again:
// a kernel thread, or a process that is exiting (an exec does neither).
func noCommandLine(pid int) bool {
	f, ok := statFields(strconv.Itoa(pid))
	if !ok || len(f) < 7 {
		return false
	}
	flags, err := strconv.ParseUint(f[6], 10, 64)
	return err == nil && flags&(pfKthread|pfExiting) != 0
}

// startTime is field 22 of /proc/PID/stat, in clock ticks since boot;
// a zombie counts as gone.
func startTime(pid int) (uint64, bool) {
	f, ok := statFields(strconv.Itoa(pid))
	if !ok || len(f) < 20 || f[0] == "Z" || f[0] == "X" {
		return 0, false
	}
	st, err := strconv.ParseUint(f[19], 10, 64)
	return st, err == nil
}

// sweep kills what is left of sandbox id's processes once its bwrap is
// gone or going: every process that names the sandbox's folder on its
// command line (the start script, bwrap, and bwrap's init inside, which
// keeps bwrap's command line) and started no earlier than it. The init
// is pid 1 of the sandbox's pid namespace: its end ends every process
// in the sandbox, even when the bwrap outside was killed first and left
// it to the host's init. p is the sandbox's pid file.
func sweep(id string, p pidFile) {
	since := p.StartTime
	mark := []byte("/sandboxes/" + id + "/")
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, ok := startTime(pid)
		if !ok || st < since {
			continue
		}
		if cmdline, ok := sweepCmdline(pid, st, p); ok && bytes.Contains(cmdline, mark) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// sweepCmdline reads the command line of pid, started at st, for a sweep
// of the sandbox whose pid file is p. Only the process of the pid file
// (the start script or launcher, then bwrap) is ever caught between two
// command lines that name the sandbox's folder, in an exec or as a
// launcher waiting for the plan it is about to get, and only it is
// waited for (readCmdline), known by its pid and start time: any other
// with no command line is not the sandbox's, nor is another launcher
// forked in the same tick of the clock, which waits for its plan as long
// as its controller runs. Code in a sandbox can empty the command line of
// as many of its processes as it likes (prctl(PR_SET_MM_MAP) needs no
// privilege, or an munmap); each, taken for an exec, would hold up every
// sweep of the host for execWait, and with it the end of every other
// sandbox.
func sweepCmdline(pid int, st uint64, p pidFile) ([]byte, bool) {
	if pid == p.Pid && st == p.StartTime {
		return readCmdline(pid, st, true)
	}
	b, err := readProc(fmt.Sprintf("/proc/%d/cmdline", pid))
	return b, err == nil
}

// children lists the processes whose parent is pid: as the kernel lists
// each of its threads' children, or, on a kernel that keeps no such list
// (CONFIG_PROC_CHILDREN), by a look at every process of the host.
func children(pid int) []int {
	if out, ok := childrenListed(pid); ok {
		return out
	}
	return childrenScanned(pid)
}

func childrenScanned(pid int) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	parent := strconv.Itoa(pid)
	for _, e := range entries {
		f, ok := statFields(e.Name())
		if ok && len(f) > 1 && f[1] == parent {
			if child, err := strconv.Atoi(e.Name()); err == nil {
				out = append(out, child)
			}
		}
	}
	return out
}

// childrenListed reads /proc/PID/task/TID/children of each thread of pid;
// not ok when one cannot be read (no such file on this kernel, or a
// thread that ended meanwhile).
func childrenListed(pid int) ([]int, bool) {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return nil, false
	}
	var out []int
	for _, task := range tasks {
		b, err := readProc(fmt.Sprintf("/proc/%d/task/%s/children", pid, task.Name()))
		if err != nil {
			return nil, false
		}
		for _, f := range strings.Fields(string(b)) {
			if child, err := strconv.Atoi(f); err == nil {
				out = append(out, child)
			}
		}
	}
	return out, true
}

// rawSysProcAttr is what a raw bwrap run needs as root: the private mount
// namespace the launcher mounts the alias in.
func rawSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS}
}

// runsOnlyItself reports whether the sandbox runs nothing but itself: its
// cgroup holds bwrap's monitor, the sandbox's init (the monitor's child)
// and the agent (the init's child), and no other process. A polite stop
// then has no one to ask to end, and the agent is not called: the call
// costs every stop a round trip through the sandbox, for nothing. Any
// doubt (no cgroup, one that cannot be read, a process it does not know)
// says no, and the agent is asked. A process the sandbox starts after
// this look is killed with the rest, as one it starts after the agent's
// own look would be.
func (sb *sandbox) runsOnlyItself() bool {
	if sb.cg == nil {
		return false
	}
	for _, dir := range []string{sb.cg.v2, sb.cg.pids, sb.cg.memory} {
		if dir == "" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
		if err != nil {
			return false
		}
		return onlyItself(strings.Fields(string(b)), sb.pid.Pid, parentOf)
	}
	return false
}

// onlyItself reports whether procs, a cgroup's processes, are exactly
// monitor, one child of it, and one child of that child.
func onlyItself(procs []string, monitor int, parent func(pid int) int) bool {
	if len(procs) != 3 || monitor <= 0 {
		return false
	}
	pids := make([]int, 0, 3)
	for _, p := range procs {
		n, err := strconv.Atoi(p)
		if err != nil || n <= 0 {
			return false
		}
		pids = append(pids, n)
	}
	var init, agent int
	for _, p := range pids {
		if p != monitor && parent(p) == monitor {
			init = p
		}
	}
	for _, p := range pids {
		if init > 0 && p != init && p != monitor && parent(p) == init {
			agent = p
		}
	}
	return init > 0 && agent > 0 && slices.Contains(pids, monitor)
}

// parentOf is pid's parent, or 0 when it cannot be read.
func parentOf(pid int) int {
	f, ok := statFields(strconv.Itoa(pid))
	if !ok || len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(f[1])
	return n
}
