package bubblewrap

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

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

// pidFile records the bwrap monitor of a running sandbox, with its start
// time, so a pid reused by another process is never taken for it.
type pidFile struct {
	Pid       int    `json:"pid"`
	StartTime uint64 `json:"startTime"`
}

func pidPath(stateDir string) string { return filepath.Join(stateDir, "bwrap.pid") }

func readPidFile(stateDir string) (pidFile, bool) {
	b, err := readFileNoFollow(pidPath(stateDir))
	if err != nil {
		return pidFile{}, false
	}
	var p pidFile
	if json.Unmarshal(b, &p) != nil || p.Pid <= 0 {
		return pidFile{}, false
	}
	return p, true
}

func writePidFile(stateDir string, p pidFile) error {
	b, _ := json.Marshal(p)
	return replaceFile(pidPath(stateDir), b, 0o600)
}

// alive reports whether p is still the bwrap of the sandbox in stateDir:
// the same pid, started at the same time, with the sandbox's folder
// (ROOT/sandboxes/ID, or its alias) on its command line, which is how a
// sandbox is marked with the root it belongs to.
func (p pidFile) alive(stateDir string) bool {
	st, ok := startTime(p.Pid)
	if !ok || st != p.StartTime {
		return false
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p.Pid))
	mark := "/sandboxes/" + filepath.Base(stateDir) + "/"
	return err == nil && bytes.Contains(cmdline, []byte(mark))
}

// startTime is field 22 of /proc/PID/stat, in clock ticks since boot;
// a zombie counts as gone.
func startTime(pid int) (uint64, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 || f[0] == "Z" || f[0] == "X" {
		return 0, false
	}
	st, err := strconv.ParseUint(f[19], 10, 64)
	return st, err == nil
}

// dialAgent connects to the agent's socket in the sandbox's folder. The
// path is reached through an open handle on its folder, so a root deep
// enough to make the path longer than a socket address allows still works.
func dialAgent(ctx context.Context, stateDir string) (net.Conn, error) {
	dir := filepath.Join(stateDir, "run")
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("reach sandbox agent: %w", err)
	}
	defer unix.Close(fd)
	var d net.Dialer
	return d.DialContext(ctx, "unix", fmt.Sprintf("/proc/self/fd/%d/agent.sock", fd))
}

// children lists the processes whose parent is pid.
func children(pid int) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			if child, err := strconv.Atoi(e.Name()); err == nil {
				out = append(out, child)
			}
		}
	}
	return out
}

// rawSysProcAttr is what a raw bwrap run needs as root: the private mount
// namespace the launcher mounts the alias in.
func rawSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS}
}
