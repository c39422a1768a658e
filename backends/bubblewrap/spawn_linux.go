package bubblewrap

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"sandboxdesk/backends/agent"
)

// startGate holds the child until the controller has recorded its pid
// (the line it writes on stdin): a controller killed before that closes
// the pipe, and the child ends instead of becoming a sandbox nobody
// knows of.
const startGate = `IFS= read -r go || exit 125; exec </dev/null; `

// joinScript waits at the gate, joins each cgroup.procs file given before
// "--", then runs the rest: every process of the sandbox is inside its
// cgroup from the start.
const joinScript = startGate + `for f in "$@"; do [ "$f" = -- ] && break; echo $$ > "$f" || exit 125; shift; done; shift; exec "$@"`

// rootAlias is where, as root, the root folder is bind-mounted in the
// sandbox's own mount namespace before bwrap starts as the sandbox user.
// The user may not pass through the folders above the root (/root is
// 0700), and bwrap opens every source path as that user.
const rootAlias = "/mnt/sandboxdesk-root"

// aliasScript runs as root in a private mount namespace: it mounts the
// root at the alias, joins the cgroups, and becomes the sandbox user to
// run bwrap. $1 is the root, $2 and $3 the user and group; cgroup.procs
// files follow up to "--", then bwrap's command line.
const aliasScript = startGate + `set -e
root=$1 uid=$2 gid=$3; shift 3
mkdir -p ` + rootAlias + `
mount -t tmpfs -o mode=0711,size=64k sandboxdesk ` + rootAlias + `
mkdir ` + rootAlias + `/r
mount --bind "$root" ` + rootAlias + `/r
for f in "$@"; do [ "$f" = -- ] && break; echo $$ > "$f"; shift; done; shift
exec setpriv --reuid="$uid" --regid="$gid" --clear-groups -- "$@"`

// command is the full command line that starts a sandbox: bwrap, behind
// the start gate and the cgroup join, and as root behind the alias mount
// and the switch to the sandbox user.
func (b *Backend) command(l layout, img imageLayout) []string {
	if !b.ids.switchTo {
		args := append([]string{b.bwrap}, bwrapArgs(l, img)...)
		return append(append(append([]string{"/bin/sh", "-c", joinScript, "sh"}, l.CgroupProcs...), "--"), args...)
	}
	alias := rootAlias + "/r"
	move := func(p string) string {
		if within(b.root, p) {
			rel, _ := filepath.Rel(b.root, p)
			return filepath.Join(alias, rel)
		}
		return p
	}
	l.StateDir, l.Workspace, l.Agent = move(l.StateDir), move(l.Workspace), move(l.Agent)
	if !l.HostImage {
		l.ImageRoot = move(l.ImageRoot)
	}
	args := []string{"/bin/sh", "-c", aliasScript, "sh", b.root, strconv.Itoa(b.ids.uid), strconv.Itoa(b.ids.gid)}
	args = append(append(args, l.CgroupProcs...), "--", b.bwrap)
	return append(args, bwrapArgs(l, img)...)
}

func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// spawn starts the sandbox's bwrap on a fresh agent socket. The child
// waits at the start gate until its pid file is written, so no sandbox
// ever runs that a later controller could not find.
func (b *Backend) spawn(id string, l layout, img imageLayout) (*sandbox, error) {
	ctl := b.ctlDir(id)
	sock, err := listenAgent(ctl)
	if err != nil {
		return nil, fmt.Errorf("start sandbox: %w", err)
	}
	defer sock.Close()
	logf, err := createCtl(ctl, logFileName)
	if err != nil {
		return nil, fmt.Errorf("start sandbox: %w", err)
	}
	defer logf.Close()
	gate, release, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start sandbox: %w", err)
	}
	defer release.Close()
	args := b.command(l, img)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = "/"
	cmd.Stdin, cmd.Stdout, cmd.Stderr = gate, logf, logf
	cmd.ExtraFiles = []*os.File{agentListenFD - 3: sock}
	// its own session: the sandbox outlives a controller that is killed,
	// and the next one adopts it
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if b.ids.switchTo {
		// a mount namespace of its own for the alias of the root (see
		// command); Go makes its mounts private before the script runs
		cmd.SysProcAttr.Unshareflags = syscall.CLONE_NEWNS
	}
	err = cmd.Start()
	gate.Close()
	if err != nil {
		return nil, fmt.Errorf("start bwrap: %w", err)
	}
	st, _ := startTime(cmd.Process.Pid)
	sb := &sandbox{id: id, ctl: ctl, pid: pidFile{Pid: cmd.Process.Pid, StartTime: st}, exited: make(chan struct{})}
	go func() {
		cmd.Wait()
		sb.reason = exitReason(cmd.ProcessState)
		close(sb.exited)
	}()
	if err := writePidFile(ctl, sb.pid); err != nil {
		release.Close() // the child ends at the gate
		<-sb.exited
		return nil, fmt.Errorf("start sandbox: %w", err)
	}
	if _, err := release.Write([]byte("go\n")); err != nil {
		<-sb.exited
		return nil, fmt.Errorf("start sandbox: the child ended before it was let through: %w", err)
	}
	return sb, nil
}

// awaitAgent waits until the agent answers, or says why bwrap gave up.
// The socket exists before bwrap starts, so a dial succeeds at once and
// the ping waits in the socket's queue for the agent to accept it; when
// every holder of the socket is gone it fails instead.
func (b *Backend) awaitAgent(ctx context.Context, sb *sandbox) error {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	for delay := time.Millisecond; ; delay = min(delay*2, 50*time.Millisecond) {
		_, err := agent.Call(ctx, b.dialer(sb), agent.Request{Op: "ping"})
		if err == nil {
			return nil
		}
		select {
		case <-sb.exited:
			log, _ := readCtl(sb.ctl, logFileName)
			return fmt.Errorf("bwrap exited at start (%s): %s", sb.reason, strings.TrimSpace(string(log)))
		case <-ctx.Done():
			return fmt.Errorf("the sandbox's agent did not answer: %w", ctx.Err())
		case <-time.After(delay):
		}
	}
}

func (b *Backend) dialer(sb *sandbox) agent.Dialer {
	return func(ctx context.Context) (net.Conn, error) { return dialAgent(ctx, sb.ctl) }
}
