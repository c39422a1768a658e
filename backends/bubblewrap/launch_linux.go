package bubblewrap

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// A root controller starts each sandbox through a launcher: this very
// binary, run again with launchCommand in a mount namespace of its own.
// As root, it mounts what the sandbox needs under rootAlias (its own
// folder, the workspace, the image, the agent), joins the sandbox's
// cgroups, then becomes the sandbox's host user and executes bwrap. bwrap
// opens every source path as that user, who may not pass through the
// controller's root (it is 0700); the alias gives it exactly its own
// folders and nothing beside them.
const (
	launchCommand = "__sandboxdesk_bwrap_launch"
	// holdCommand waits until its stdin closes: a process whose only
	// purpose is to own the user namespace an idmapped mount is made from.
	holdCommand = "__sandboxdesk_userns_hold"
)

// rootAlias is the launcher's tmpfs, in its private mount namespace.
const rootAlias = "/mnt/sandboxdesk-root"

// workspaceFD is where the launcher finds the detached, idmapped tree of
// the workspace when the controller could make one.
const workspaceFD = 3

// The launcher and the holder are dispatched before anything else runs,
// in the controller's binary and in test binaries alike.
func init() {
	if len(os.Args) < 2 {
		return
	}
	switch os.Args[1] {
	case launchCommand:
		os.Exit(launchMain(os.Args[2:]))
	case prelaunchCommand:
		os.Exit(prelaunchMain())
	case holdCommand:
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}
}

// launchPlan is what the launcher does before it executes bwrap.
type launchPlan struct {
	UID int `json:"uid"`
	GID int `json:"gid"`
	// Binds are host paths mounted at paths under rootAlias.
	Binds []aliasBind `json:"binds"`
	// Workspace is where the idmapped workspace tree (workspaceFD) goes;
	// empty when the workspace is among Binds.
	Workspace string `json:"workspace,omitempty"`
	// CgroupJoin are the files the launcher writes "0" to, from the
	// thread that then executes bwrap (see cgroup.joinFiles).
	CgroupJoin []string `json:"cgroupJoin,omitempty"`
}

type aliasBind struct {
	Src  string `json:"src"`
	Dst  string `json:"dst"`
	File bool   `json:"file,omitempty"`
}

// launchMain runs "BINARY launchCommand PLAN BWRAP ARGS...".
func launchMain(args []string) int {
	var p launchPlan
	if len(args) < 2 || json.Unmarshal([]byte(args[0]), &p) != nil {
		fmt.Fprintln(os.Stderr, "usage: sandboxdesk", launchCommand, "PLAN BWRAP [ARGS...]")
		return 2
	}
	if err := awaitGate(); err != nil {
		fmt.Fprintln(os.Stderr, "sandboxdesk: start sandbox:", err)
		return 125
	}
	if err := p.run(args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "sandboxdesk: start sandbox:", err)
		return 125
	}
	return 0 // not reached: run executes bwrap
}

func (p launchPlan) run(bwrap []string) error {
	if p.UID <= 0 || p.GID <= 0 {
		return fmt.Errorf("refusing to run a sandbox as host uid %d gid %d", p.UID, p.GID)
	}
	if err := os.MkdirAll(rootAlias, 0o755); err != nil {
		return fmt.Errorf("make %s: %w", rootAlias, err)
	}
	if err := unix.Mount("sandboxdesk", rootAlias, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0711,size=64k"); err != nil {
		return fmt.Errorf("mount %s: %w", rootAlias, err)
	}
	for _, b := range p.Binds {
		fd, err := unix.OpenTree(unix.AT_FDCWD, b.Src, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_SYMLINK_NOFOLLOW)
		if err != nil {
			return fmt.Errorf("bind %s: %w", b.Src, err)
		}
		err = attach(fd, b.Dst, b.File)
		unix.Close(fd)
		if err != nil {
			return fmt.Errorf("bind %s: %w", b.Src, err)
		}
	}
	if p.Workspace != "" {
		err := attach(workspaceFD, p.Workspace, false)
		// never into bwrap: a mount descriptor of this namespace would
		// lead out of the sandbox's root through ".."
		unix.Close(workspaceFD)
		if err != nil {
			return fmt.Errorf("mount the workspace: %w", err)
		}
	}
	// a v1 tasks file moves only the thread that writes it: the one
	// that executes bwrap below, and the only one left after that
	runtime.LockOSThread()
	for _, f := range p.CgroupJoin {
		if err := joinCgroup(f); err != nil {
			return err
		}
	}
	if err := syscall.Setgroups(nil); err != nil {
		return fmt.Errorf("drop groups: %w", err)
	}
	if err := syscall.Setresgid(p.GID, p.GID, p.GID); err != nil {
		return fmt.Errorf("become gid %d: %w", p.GID, err)
	}
	if err := syscall.Setresuid(p.UID, p.UID, p.UID); err != nil {
		return fmt.Errorf("become uid %d: %w", p.UID, err)
	}
	if err := syscall.Exec(bwrap[0], bwrap, os.Environ()); err != nil {
		return fmt.Errorf("run %s: %w", bwrap[0], err)
	}
	return nil
}

// attach moves the detached tree fd to dst under the alias, made first
// as an empty folder or file.
func attach(fd int, dst string, file bool) error {
	if !within(rootAlias, dst) {
		return fmt.Errorf("%s is outside %s", dst, rootAlias)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o711); err != nil {
		return err
	}
	var err error
	if file {
		err = os.WriteFile(dst, nil, 0o644)
	} else {
		err = os.Mkdir(dst, 0o711)
	}
	if err != nil {
		return err
	}
	return unix.MoveMount(fd, "", unix.AT_FDCWD, dst, unix.MOVE_MOUNT_F_EMPTY_PATH)
}

// joinCgroup writes "0" to a cgroup's cgroup.procs or tasks file: the
// calling process, or the calling thread, joins it. Plain system calls:
// os.File would offer the file to Go's poller first, for nothing.
func joinCgroup(file string) error {
	fd, err := unix.Open(file, unix.O_WRONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("join cgroup: %w", &os.PathError{Op: "open", Path: file, Err: err})
	}
	_, err = unix.Write(fd, []byte("0"))
	if cerr := unix.Close(fd); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("join cgroup %s: %w", file, err)
	}
	return nil
}
