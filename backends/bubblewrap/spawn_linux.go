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

	"golang.org/x/sys/unix"

	"sandboxdesk/backends"
	"sandboxdesk/backends/agent"
)

// startGate holds the child until the controller has recorded its pid
// (the line it writes on stdin): a controller killed before that closes
// the pipe, and the child ends instead of becoming a sandbox nobody
// knows of.
const startGate = `IFS= read -r go || exit 125; exec </dev/null; `

// awaitGate is the start gate in the launcher: it returns once the
// controller lets it through, with stdin then /dev/null, and fails when
// the controller is gone first.
func awaitGate() error {
	var c [1]byte
	for {
		n, err := os.Stdin.Read(c[:])
		if n == 1 && c[0] == '\n' {
			break
		}
		if err != nil {
			return fmt.Errorf("the controller was gone before it let the sandbox start: %w", err)
		}
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		return err
	}
	defer null.Close()
	return unix.Dup3(int(null.Fd()), 0, 0)
}

// joinScript waits at the gate, joins its cgroups by writing "0" (itself,
// the one thread of the shell) to each file given before "--", then runs
// the rest: every process of the sandbox is inside its cgroups from the
// start.
const joinScript = startGate + `for f in "$@"; do [ "$f" = -- ] && break; echo 0 > "$f" || exit 125; shift; done; shift; exec "$@"`

// sandboxRun is how a root controller runs one sandbox: as its own host
// user, with its workspace idmapped to that user.
type sandboxRun struct {
	user      ids
	workspace *os.File // a detached idmapped tree; nil: bound as it is
}

// command is the full command line that starts a sandbox: bwrap, behind
// the start gate and the cgroup join, and as root (run set) behind the
// launcher, which waits at the same gate, mounts the sandbox's folders at
// the alias and becomes its host user. A root controller's sandbox does
// not run it as it is: its launcher, forked ahead (see prelaunch), is
// sent the plan and bwrap's part of it. The raw benchmark runs it whole.
func (b *Backend) command(l layout, img imageLayout, run *sandboxRun) []string {
	if run == nil {
		args := append([]string{b.bwrap}, bwrapArgs(l, img)...)
		return append(append(append([]string{"/bin/sh", "-c", joinScript, "sh"}, l.CgroupJoin...), "--"), args...)
	}
	plan := launchPlan{UID: run.user.uid, GID: run.user.gid, CgroupJoin: l.CgroupJoin}
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

// spawn starts the sandbox's bwrap on a fresh agent socket. The child
// waits at the start gate until its pid file is written, so no sandbox
// ever runs that a later controller could not find. For network "on" it
// returns once the sandbox's NAT is up. As root, the child is pre, the
// launcher kept ready or forked at the top of Start, and its plan is the
// gate.
func (b *Backend) spawn(ctx context.Context, id string, l layout, img imageLayout, run *sandboxRun, pre *pendingLaunch) (*sandbox, error) {
	ctl := b.ctlDir(id)
	sock, err := listenAgent(ctl)
	if err != nil {
		return nil, fmt.Errorf("start sandbox: %w", err)
	}
	defer sock.Close()
	var inherited []*os.File
	if run != nil && run.workspace != nil {
		inherited = append(inherited, run.workspace) // workspaceFD
	}
	inherited = append(inherited, sock)
	l.AgentFD = 3 + len(inherited) - 1
	// the agent writes one byte here once it accepts calls; every holder
	// of the write end is in the sandbox, so end of file means it is gone
	ready, signal, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start sandbox: %w", err)
	}
	defer signal.Close()
	handed := false // ready goes to the sandbox record, or is closed here
	defer func() {
		if !handed {
			ready.Close()
		}
	}()
	inherited = append(inherited, signal)
	l.ReadyFD = 3 + len(inherited) - 1
	hardening, err := launchFiles(&l, 3+len(inherited))
	if err != nil {
		return nil, fmt.Errorf("start sandbox: %w", err)
	}
	defer closeAll(hardening)
	inherited = append(inherited, hardening...)
	var nat *natPipes
	if l.Network == backends.NetworkOn {
		if nat, err = newNATPipes(run); err != nil {
			return nil, err
		}
		defer nat.close()
		// after the others: the launcher passes them on to bwrap
		l.InfoFD, l.SyncFD = 3+len(inherited), 4+len(inherited)
		inherited = append(inherited, nat.bwrapFiles()...)
	}
	logf, err := createCtl(ctl, logFileName)
	if err != nil {
		return nil, fmt.Errorf("start sandbox: %w", err)
	}
	defer logf.Close()
	var sb *sandbox
	if pre != nil {
		sb, err = b.sendPlan(id, pre, b.command(l, img, run), inherited, logf)
	} else {
		sb, err = b.start(id, b.command(l, img, run), run != nil, inherited, logf)
	}
	signal.Close()
	if nat != nil {
		nat.closeBwrapEnds()
	}
	if err != nil {
		return nil, err
	}
	sb.ready = ready
	if nat != nil {
		if err := b.startNAT(ctx, sb, nat, run); err != nil {
			b.kill(sb)
			sweep(id, sb.pid)
			if said := bwrapSaid(ctl); said != "" {
				err = fmt.Errorf("%w (bwrap: %s)", err, said)
			}
			clearCtl(ctl)
			return nil, err
		}
	}
	handed = true
	return sb, nil
}

// sendPlan makes the launcher sandbox id's: it writes its pid file, then
// lets it through with its plan. A spare that has ended meanwhile (killed
// by someone) is replaced by a new launcher, once.
func (b *Backend) sendPlan(id string, pl *pendingLaunch, args []string, inherited []*os.File, logf *os.File) (*sandbox, error) {
	p, err := pl.wait()
	if err == nil && p.ended() {
		p.abort()
		p, err = b.prelaunch()
	}
	if err != nil {
		return nil, fmt.Errorf("start sandbox: %w", err)
	}
	// a spare may still start at the idle policy: this start waits on it
	setSched(p.sb.pid.Pid, unix.SCHED_NORMAL)
	p.sb.id, p.sb.ctl = id, b.ctlDir(id)
	if err := writePidFile(p.sb.ctl, p.sb.pid); err != nil {
		p.abort() // it ends at the gate
		return nil, fmt.Errorf("start sandbox: %w", err)
	}
	if err := p.send(args, inherited, logf); err != nil {
		p.abort()
		return nil, fmt.Errorf("start sandbox: %w", err)
	}
	// the next start's launcher starts now, while this one's sandbox is
	// made (its controller waits for bwrap, the NAT and the agent): the
	// idle time of those waits is what it takes, not the reply's or the
	// next command's
	b.keepSpare()
	return p.sb, nil
}

// start starts args behind the start gate, writes its pid file, then
// lets it through. ownMounts: in a mount namespace of its own, for the
// launcher's alias (see command).
func (b *Backend) start(id string, args []string, ownMounts bool, inherited []*os.File, logf *os.File) (*sandbox, error) {
	ctl := b.ctlDir(id)
	gate, release, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start sandbox: %w", err)
	}
	defer release.Close()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = "/"
	cmd.Env = bwrapEnv
	cmd.ExtraFiles = inherited
	cmd.Stdin, cmd.Stdout, cmd.Stderr = gate, logf, logf
	// its own session: the sandbox outlives a controller that is killed,
	// and the next one adopts it
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if ownMounts {
		// Go makes its mounts private before the launcher runs
		cmd.SysProcAttr.Unshareflags = syscall.CLONE_NEWNS
	}
	err = startInOwnKeyring(cmd, nil)
	gate.Close()
	if err != nil {
		return nil, fmt.Errorf("start bwrap: %w", err)
	}
	st, _ := startTime(cmd.Process.Pid)
	sb := &sandbox{id: id, ctl: ctl, pid: pidFile{Pid: cmd.Process.Pid, StartTime: st}, exited: make(chan struct{}), proc: cmd.Process}
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

// awaitAgent waits until the agent says it accepts calls (one byte on
// the readiness pipe), or says why bwrap gave up: the pipe ends without
// that byte when every process of the sandbox is gone.
func (b *Backend) awaitAgent(ctx context.Context, sb *sandbox) error {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	defer sb.ready.Close()
	said := make(chan bool, 1)
	go func() {
		var c [1]byte
		n, _ := sb.ready.Read(c[:])
		said <- n == 1
	}()
	select {
	case ok := <-said:
		if ok {
			return nil
		}
		// end of file: the sandbox is ending; say how once it has
		select {
		case <-sb.exited:
		case <-ctx.Done():
			return fmt.Errorf("the sandbox's agent ended at start: %w", ctx.Err())
		}
	case <-sb.exited:
	case <-ctx.Done():
		return fmt.Errorf("the sandbox's agent did not start: %w", ctx.Err())
	}
	return fmt.Errorf("bwrap exited at start (%s): %s", sb.reason, bwrapSaid(sb.ctl))
}

// bwrapSaid is what bwrap wrote to its log in the control folder, as
// text a terminal shows literally: bwrap names the paths it failed on,
// and an image chose them.
func bwrapSaid(ctl string) string {
	log, _ := readCtl(ctl, logFileName)
	return printable(strings.TrimSpace(string(log)))
}

func (b *Backend) dialer(sb *sandbox) agent.Dialer {
	return func(ctx context.Context) (net.Conn, error) { return dialAgent(ctx, sb.ctl) }
}
