package bubblewrap

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// A sandbox's control folder, ROOT/bubblewrap/ID, holds what the
// controller alone may touch: the agent's listening socket, the pid file of
// the sandbox's bwrap, and bwrap's log. It belongs to the controller's user
// (0700) and is never bound into a sandbox, so neither a sandbox nor the
// host user sandboxes run as can put a link or another socket where the
// controller dials, or make it write through one.
const (
	controlFolder = "bubblewrap"
	agentSockName = "agent.sock"
	pidFileName   = "bwrap.pid"
	logFileName   = "bwrap.log"
)

func (b *Backend) ctlDir(id string) string { return filepath.Join(b.root, controlFolder, id) }

func (b *Backend) stateDir(id string) string { return filepath.Join(b.root, "sandboxes", id) }

// openCtl opens a control folder without following a link, making it
// first when make is set, and refuses one that is not the controller's
// own and private. The handle reaches the folder's entries by
// /proc/self/fd/N/NAME, which also keeps socket addresses short however
// deep the root is.
func openCtl(dir string, make bool) (int, error) {
	if make {
		if err := os.Mkdir(filepath.Dir(dir), 0o700); err != nil && !errors.Is(err, os.ErrExist) {
			return -1, fmt.Errorf("make the sandbox's control folder: %w", err)
		}
		if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
			return -1, fmt.Errorf("make the sandbox's control folder: %w", err)
		}
	}
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("open the sandbox's control folder: %w", err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("open the sandbox's control folder: %w", err)
	}
	if int(st.Uid) != os.Geteuid() || st.Mode&0o077 != 0 {
		unix.Close(fd)
		return -1, fmt.Errorf("the sandbox's control folder %s is not private to this user (owner %d, mode %o): remove it", dir, st.Uid, st.Mode&0o7777)
	}
	return fd, nil
}

func ctlEntry(fd int, name string) string { return fmt.Sprintf("/proc/self/fd/%d/%s", fd, name) }

// listenAgent binds a fresh agent socket in the control folder and
// returns it as a file for bwrap to inherit. The controller's own copy
// is closed by the caller; the socket file stays for later dials, also
// by the next controller.
func listenAgent(dir string) (*os.File, error) {
	fd, err := openCtl(dir, true)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	unix.Unlinkat(fd, agentSockName, 0)
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: ctlEntry(fd, agentSockName), Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("make the agent's socket: %w", err)
	}
	l.SetUnlinkOnClose(false)
	defer l.Close()
	f, err := l.File()
	if err != nil {
		return nil, fmt.Errorf("make the agent's socket: %w", err)
	}
	return f, nil
}

// dialAgent connects to the agent's socket in the control folder.
func dialAgent(ctx context.Context, dir string) (net.Conn, error) {
	fd, err := openCtl(dir, false)
	if err != nil {
		return nil, fmt.Errorf("reach sandbox agent: %w", err)
	}
	defer unix.Close(fd)
	var d net.Dialer
	return d.DialContext(ctx, "unix", ctlEntry(fd, agentSockName))
}

// pidFile records the bwrap monitor of a running sandbox, with its start
// time, so a pid reused by another process is never taken for it.
type pidFile struct {
	Pid       int    `json:"pid"`
	StartTime uint64 `json:"startTime"`
	// NetPid is the sandbox's NAT helper (network "on"), with its start
	// time; 0 when it has none.
	NetPid       int    `json:"netPid,omitempty"`
	NetStartTime uint64 `json:"netStartTime,omitempty"`
}

func readPidFile(dir string) (pidFile, bool) {
	b, err := readCtl(dir, pidFileName)
	if err != nil {
		return pidFile{}, false
	}
	var p pidFile
	if json.Unmarshal(b, &p) != nil || p.Pid <= 0 {
		return pidFile{}, false
	}
	return p, true
}

// writePidFile replaces the pid file in one step: it is rewritten once
// the sandbox runs (to add its NAT helper), and a controller killed while
// writing it must leave the old record or the new one, never a missing or
// empty one that would make a running sandbox unknown to the next.
func writePidFile(dir string, p pidFile) error {
	b, _ := json.Marshal(p)
	tmp := pidFileName + ".new"
	f, err := createCtl(dir, tmp)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	fd, err := openCtl(dir, true)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if err := unix.Renameat(fd, tmp, fd, pidFileName); err != nil {
		return fmt.Errorf("record the sandbox's pid: %w", err)
	}
	return nil
}

// createCtl creates a file in a control folder anew, never through a
// link (and whatever the mode closeCtl left the last one with).
func createCtl(dir, name string) (*os.File, error) {
	fd, err := openCtl(dir, true)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	unix.Unlinkat(fd, name, 0)
	return os.OpenFile(ctlEntry(fd, name), os.O_CREATE|os.O_EXCL|os.O_WRONLY|unix.O_NOFOLLOW, 0o600)
}

// closeCtl takes every right on a control file from its owner once the
// controller is done reading it. bwrap, the sandbox's pid 1, keeps its
// log open, and a process of the sandbox may open a file again through
// /proc/1/fd/N whenever the file's mode lets its host user: for a
// person's controller that user is the controller's own.
func closeCtl(dir, name string) {
	fd, err := openCtl(dir, false)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	unix.Fchmodat(fd, name, 0, 0)
}

func readCtl(dir, name string) ([]byte, error) {
	fd, err := openCtl(dir, false)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	f, err := os.OpenFile(ctlEntry(fd, name), os.O_RDONLY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var b [4096]byte
	n, err := f.Read(b[:])
	return b[:n], err
}

// clearCtl removes what a stopped sandbox leaves in its control folder.
func clearCtl(dir string) {
	for _, name := range []string{pidFileName, pidFileName + ".new", agentSockName} {
		os.Remove(filepath.Join(dir, name))
	}
}

// endLegacy ends the sandboxes that versions before the control folder
// started. Their pid file is in the sandbox's own folder and their agent
// listens on a path the sandbox can replace, so they cannot be reached
// safely; left running, nothing would list them and a create would start
// a second tree beside them. Their folders and workspaces stay.
func (b *Backend) endLegacy() {
	entries, _ := os.ReadDir(filepath.Join(b.root, "sandboxes"))
	for _, e := range entries {
		path := filepath.Join(b.root, "sandboxes", e.Name(), pidFileName)
		f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NOFOLLOW, 0)
		if err != nil {
			continue
		}
		var p pidFile
		err = json.NewDecoder(io.LimitReader(f, 4096)).Decode(&p)
		f.Close()
		if err == nil && p.Pid > 0 && p.alive(e.Name()) {
			for _, child := range children(p.Pid) {
				syscall.Kill(child, syscall.SIGKILL)
			}
			syscall.Kill(p.Pid, syscall.SIGKILL)
			sweep(e.Name(), p)
		}
		os.Remove(path)
	}
}
