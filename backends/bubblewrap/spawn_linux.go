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

// joinScript joins each cgroup.procs file given before "--", then runs the
// rest: every process of the sandbox is inside its cgroup from the start.
const joinScript = `for f in "$@"; do [ "$f" = -- ] && break; echo $$ > "$f" || exit 125; shift; done; shift; exec "$@"`

// rootAlias is where, as root, the root folder is bind-mounted in the
// sandbox's own mount namespace before bwrap starts as the sandbox user.
// The user may not pass through the folders above the root (/root is
// 0700), and bwrap opens every source path as that user.
const rootAlias = "/mnt/sandboxdesk-root"

// aliasScript runs as root in a private mount namespace: it mounts the
// root at the alias, joins the cgroups, and becomes the sandbox user to
// run bwrap. $1 is the root, $2 and $3 the user and group; cgroup.procs
// files follow up to "--", then bwrap's command line.
const aliasScript = `set -e
root=$1 uid=$2 gid=$3; shift 3
mkdir -p ` + rootAlias + `
mount -t tmpfs -o mode=0711,size=64k sandboxdesk ` + rootAlias + `
mkdir ` + rootAlias + `/r
mount --bind "$root" ` + rootAlias + `/r
for f in "$@"; do [ "$f" = -- ] && break; echo $$ > "$f"; shift; done; shift
exec setpriv --reuid="$uid" --regid="$gid" --clear-groups -- "$@"`

// command is the full command line that starts a sandbox: bwrap, behind
// the cgroup join, and as root behind the alias mount and the switch to
// the sandbox user.
func (b *Backend) command(l layout, img imageLayout) []string {
	if !b.ids.switchTo {
		args := append([]string{b.bwrap}, bwrapArgs(l, img)...)
		if len(l.CgroupProcs) == 0 {
			return args
		}
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

func (b *Backend) spawn(l layout, img imageLayout) (*sandbox, error) {
	extra, err := launchFiles(&l, l.Trust.files)
	if err != nil {
		return nil, fmt.Errorf("start sandbox: %w", err)
	}
	defer closeAll(extra)
	args := b.command(l, img)
	logf, err := os.OpenFile(filepath.Join(l.StateDir, "bwrap.log"), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("start sandbox: %w", err)
	}
	defer logf.Close()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = "/"
	cmd.Env = bwrapEnv
	cmd.ExtraFiles = extra
	cmd.Stdout, cmd.Stderr = logf, logf
	// its own session: the sandbox outlives a controller that is killed,
	// and the next one adopts it
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if b.ids.switchTo {
		// a mount namespace of its own for the alias of the root (see
		// command); Go makes its mounts private before the script runs
		cmd.SysProcAttr.Unshareflags = syscall.CLONE_NEWNS
	}
	if err := startInOwnKeyring(cmd); err != nil {
		return nil, fmt.Errorf("start bwrap: %w", err)
	}
	st, _ := startTime(cmd.Process.Pid)
	sb := &sandbox{stateDir: l.StateDir, pid: pidFile{Pid: cmd.Process.Pid, StartTime: st}, exited: make(chan struct{})}
	go func() { cmd.Wait(); close(sb.exited) }()
	if err := writePidFile(l.StateDir, sb.pid); err != nil {
		b.kill(sb)
		return nil, fmt.Errorf("start sandbox: %w", err)
	}
	return sb, nil
}

// awaitAgent waits until the agent answers, or says why bwrap gave up.
func (b *Backend) awaitAgent(ctx context.Context, sb *sandbox) error {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	for delay := time.Millisecond; ; delay = min(delay*2, 50*time.Millisecond) {
		pctx, pcancel := context.WithTimeout(ctx, time.Second)
		_, err := agent.Call(pctx, b.dialer(sb.stateDir), agent.Request{Op: "ping"})
		pcancel()
		if err == nil {
			return nil
		}
		select {
		case <-sb.exited:
			log, _ := os.ReadFile(filepath.Join(sb.stateDir, "bwrap.log"))
			return fmt.Errorf("bwrap exited at start: %s", strings.TrimSpace(string(log)))
		case <-ctx.Done():
			return fmt.Errorf("the sandbox's agent did not answer: %w", ctx.Err())
		case <-time.After(delay):
		}
	}
}

func (b *Backend) dialer(stateDir string) agent.Dialer {
	return func(ctx context.Context) (net.Conn, error) { return dialAgent(ctx, stateDir) }
}
