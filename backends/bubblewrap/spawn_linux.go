package bubblewrap

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"sandboxdesk/backends/agent"
)

// joinScript joins each cgroup.procs file given before "--", then runs the
// rest: every process of the sandbox is inside its cgroup from the start.
const joinScript = `for f in "$@"; do [ "$f" = -- ] && break; echo $$ > "$f" || exit 125; shift; done; shift; exec "$@"`

// sandboxRun is how a root controller runs one sandbox: as its own host
// user, with its workspace idmapped to that user.
type sandboxRun struct {
	user      ids
	workspace *os.File // a detached idmapped tree; nil: bound as it is
}

// command is the full command line that starts a sandbox: bwrap, behind
// the cgroup join, and as root (run set) behind the launcher, which
// mounts the sandbox's folders at the alias and becomes its host user.
func (b *Backend) command(l layout, img imageLayout, run *sandboxRun) []string {
	if run == nil {
		args := append([]string{b.bwrap}, bwrapArgs(l, img)...)
		if len(l.CgroupProcs) == 0 {
			return args
		}
		return append(append(append([]string{"/bin/sh", "-c", joinScript, "sh"}, l.CgroupProcs...), "--"), args...)
	}
	plan := launchPlan{UID: run.user.uid, GID: run.user.gid, CgroupProcs: l.CgroupProcs}
	alias := func(src, dst string, file bool) string {
		plan.Binds = append(plan.Binds, aliasBind{Src: src, Dst: dst, File: file})
		return dst
	}
	// the alias keeps "/sandboxes/ID/" in bwrap's command line: it marks
	// the sandbox's bwrap (see pidFile.alive)
	l.StateDir = alias(l.StateDir, filepath.Join(rootAlias, "sandboxes", filepath.Base(l.StateDir)), false)
	if run.workspace != nil {
		plan.Workspace = rootAlias + "/workspace"
		l.Workspace = plan.Workspace
	} else { // a raw benchmark run, over a workspace open to all
		l.Workspace = alias(l.Workspace, rootAlias+"/workspace", false)
	}
	if within(b.root, l.Agent) {
		l.Agent = alias(l.Agent, rootAlias+"/agent", true)
	}
	if !l.HostImage && within(b.root, l.ImageRoot) {
		l.ImageRoot = alias(l.ImageRoot, rootAlias+"/image", false)
	}
	js, _ := json.Marshal(plan)
	return append([]string{"/proc/self/exe", launchCommand, string(js), b.bwrap}, bwrapArgs(l, img)...)
}

func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

func (b *Backend) spawn(l layout, img imageLayout, run *sandboxRun) (*sandbox, error) {
	var inherited []*os.File
	if run != nil && run.workspace != nil {
		inherited = append(inherited, run.workspace) // workspaceFD
	}
	hardening, err := launchFiles(&l, 3+len(inherited))
	if err != nil {
		return nil, fmt.Errorf("start sandbox: %w", err)
	}
	defer closeAll(hardening)
	args := b.command(l, img, run)
	logf, err := createFresh(filepath.Join(l.StateDir, "bwrap.log"), 0o600)
	if err != nil {
		return nil, fmt.Errorf("start sandbox: %w", err)
	}
	defer logf.Close()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = "/"
	cmd.Env = bwrapEnv
	cmd.ExtraFiles = append(inherited, hardening...)
	cmd.Stdout, cmd.Stderr = logf, logf
	// its own session: the sandbox outlives a controller that is killed,
	// and the next one adopts it
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if run != nil {
		// a mount namespace of its own for the alias (see command); Go
		// makes its mounts private before the launcher runs
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
			log, _ := readFileNoFollow(filepath.Join(sb.stateDir, "bwrap.log"))
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
