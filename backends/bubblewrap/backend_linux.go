package bubblewrap

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"sandboxdesk/backends"
	"sandboxdesk/backends/agent"
	"sandboxdesk/stream"
)

// Name is the backend's name in requests and records.
const Name = "bubblewrap"

// Config sets up a Backend.
type Config struct {
	// Root is the controller's root: sandboxes' folders are
	// ROOT/sandboxes/ID, imported images ROOT/images.
	Root string
	// Agent is the binary that serves as the agent inside sandboxes;
	// agent.Binary (the static one beside the executable) when empty. It must run the agent (agent.Main)
	// when given agent.Command as its first argument.
	Agent string
	// Bwrap is the bwrap binary; looked up in PATH when empty.
	Bwrap string
	// UIDRegistry is where a root controller records the host uid of
	// each sandbox, shared by every root on the host;
	// DefaultUIDRegistry when empty.
	UIDRegistry string
	// Slirp4netns is the NAT helper for sandboxes with network "on";
	// looked up in PATH when empty. Without it only "off" and "host" start.
	Slirp4netns string
}

// Backend runs sandboxes with bubblewrap.
type Backend struct {
	root   string
	bwrap  string
	slirp  string // "" when not installed
	agent  string
	interp string
	libs   []string
	// asRoot: each sandbox runs as a host uid of its own (uids), and its
	// workspace stays person's.
	asRoot bool
	person ids
	uids   *uidRegistry

	checkOnce sync.Once
	checkErr  error

	mu       sync.Mutex
	running  map[string]*sandbox
	notify   backends.Notify
	mappings map[int]*os.File // user namespaces for idmapped workspaces, by sandbox uid
	// ahead is the mapping made for the uid the next new sandbox is
	// likely to get (see mapAhead), not yet any sandbox's
	ahead      aheadMapping
	aheadBusy  bool
	aheadDoing sync.WaitGroup
	// tapsClosing counts the tap devices and mount namespaces being let
	// go of (releaseTap, letGoOfMounts)
	tapsClosing sync.WaitGroup
	// spare is the launcher kept ready for the next root start (see
	// prelaunch)
	spare *pendingLaunch
	// launched, when set, hears of each launcher forked (a test's)
	launched func(pid int)
}

// sandbox is one running sandbox.
type sandbox struct {
	id       string
	ctl      string // its control folder (see ctlDir)
	pid      pidFile
	cg       *cgroup
	limitMiB int64
	oomsSeen int
	// pidsLimit is the enforced process limit (0: none); pidsSeen the
	// forks it had refused at the last look
	pidsLimit int64
	pidsSeen  int
	stopping  bool          // guarded by Backend.mu: an end that was asked for
	exited    chan struct{} // closed when its bwrap ends
	// proc is its bwrap (first its launcher) when this process started
	// it, nil when adopted: a handle that cannot name another process
	// once it has ended (a pidfd), which end uses when the command line
	// does not yet name the sandbox
	proc   *os.Process
	ready  *os.File // the readiness pipe's read end, until started
	reason string   // how it ended; set before exited closes
	// netExited is closed when a NAT helper this process started ends;
	// nil when adopted or when the sandbox has none.
	netExited chan struct{}
	// tap is the NAT helper's tap device, held so that its end does not
	// wait for the device's (see holdTap). Guarded by Backend.mu once the
	// sandbox runs.
	tap tapFD
}

// New prepares the backend: it finds bwrap and copies the agent where
// every sandbox user can read it. It does not yet try a sandbox; the first
// start does (see Check).
func New(cfg Config) (*Backend, error) {
	b := &Backend{root: cfg.Root, running: map[string]*sandbox{}, asRoot: os.Geteuid() == 0, person: workspacePerson()}
	if cfg.UIDRegistry == "" {
		cfg.UIDRegistry = DefaultUIDRegistry
	}
	b.uids = newUIDRegistry(cfg.UIDRegistry)
	var err error
	if b.bwrap = cfg.Bwrap; b.bwrap == "" {
		if b.bwrap, err = exec.LookPath("bwrap"); err != nil {
			return nil, errors.New("bubblewrap is not installed: install the bubblewrap package (apt-get install bubblewrap)")
		}
	}
	if b.slirp = cfg.Slirp4netns; b.slirp == "" {
		b.slirp, _ = exec.LookPath("slirp4netns")
	}

	src := cfg.Agent
	if src == "" {
		if src, err = agent.Binary(); err != nil {
			return nil, err
		}
	}
	if b.agent, err = b.installAgent(src); err != nil {
		return nil, err
	}
	if b.interp, b.libs, err = agentLibs(b.agent); err != nil {
		return nil, err
	}
	b.cleanImports()
	return b, nil
}

// installAgent puts a copy of the agent in ROOT/agent, where a root
// controller's launcher binds it for the sandbox user, even when the
// original sits in a private folder.
func (b *Backend) installAgent(src string) (string, error) {
	dir := filepath.Join(b.root, "agent")
	if err := os.MkdirAll(dir, 0o711); err != nil {
		return "", fmt.Errorf("install agent: %w", err)
	}
	dst := filepath.Join(dir, "sandboxdesk-agent")
	in, err := os.Open(src)
	if err != nil {
		return "", fmt.Errorf("install agent: %w", err)
	}
	defer in.Close()
	if sameAgent(in, dst) {
		return dst, nil
	}
	if err := copyAgent(in, dir, dst); err != nil {
		return "", err
	}
	return dst, nil
}

// SetNotify receives what the backend notices on its own (an OOM kill).
func (b *Backend) SetNotify(n backends.Notify) { b.mu.Lock(); b.notify = n; b.mu.Unlock() }

func (b *Backend) tell(ctx context.Context, id, msg string) {
	b.tellEvent(ctx, backends.Event{ID: id, Message: msg})
}

func (b *Backend) tellEvent(ctx context.Context, e backends.Event) {
	b.mu.Lock()
	n := b.notify
	b.mu.Unlock()
	if n != nil {
		e.Time = time.Now()
		n(ctx, e)
	}
}

// Capabilities: host processes under a limit; nothing reserved, no
// checkpoints.
func (b *Backend) Capabilities() backends.Capabilities {
	return backends.Capabilities{Kind: backends.KindProcess, DefaultImage: HostImage}
}

// Check makes one real, minimal sandbox with a time limit, as the
// sandbox user, to learn whether this host lets bwrap make user
// namespaces. The answer is kept.
func (b *Backend) Check(ctx context.Context) error {
	b.checkOnce.Do(func() {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, b.bwrap, "--unshare-user", "--uid", "1000", "--gid", "1000",
			"--unshare-pid", "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "true")
		cmd.SysProcAttr = &syscall.SysProcAttr{}
		if b.asRoot {
			probe := uint32(b.uids.probeUID())
			cmd.SysProcAttr.Credential = &syscall.Credential{Uid: probe, Gid: probe, Groups: []uint32{}}
		}
		cmd.Dir = "/"
		out, err := cmd.CombinedOutput()
		if err != nil {
			read := func(p string) string { v, _ := os.ReadFile(p); return strings.TrimSpace(string(v)) }
			b.checkErr = errors.New(usernsHint(sysctls{
				unprivilegedClone: read("/proc/sys/kernel/unprivileged_userns_clone"),
				apparmorRestrict:  read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns"),
				maxUserNamespaces: read("/proc/sys/user/max_user_namespaces"),
			}, string(out)+" "+err.Error()))
		}
	})
	return b.checkErr
}

// Start makes the sandbox's folders and cgroup and starts its bwrap, then
// waits for its agent to answer.
func (b *Backend) Start(ctx context.Context, spec backends.Spec) (backends.Started, error) {
	if err := b.Check(ctx); err != nil {
		return backends.Started{}, err
	}
	imageRoot, host, err := b.imageRoot(spec.Image)
	if err != nil {
		return backends.Started{}, err
	}
	if old, ok := b.get(spec.ID); ok {
		// a tree left by a start the previous controller never finished:
		// one sandbox never runs twice
		b.Stop(ctx, old.id, 0)
	}
	// the cgroup is made while the sandbox's folders are: the kernel's
	// work for the one and the file system's for the other overlap. Any
	// way out before the spawn removes it.
	made := b.makeCgroupAsync(spec)
	drop := func() { (<-made).cg.remove() }
	// as root, the launcher is the spare one, or starts now, while the
	// rest is made (see prelaunch); a way out before it has its plan
	// keeps it as the spare, or ends it
	var pre *pendingLaunch
	if b.asRoot {
		pre = b.launcher()
		defer b.release(pre)
	}
	img, err := scanImage(imageRoot, host)
	if err != nil {
		drop()
		return backends.Started{}, err
	}
	if spec.Network == backends.NetworkOn {
		if err := b.checkNAT(); err != nil {
			drop()
			return backends.Started{}, err
		}
	}
	run, err := b.prepare(ctx, spec)
	if err != nil {
		drop()
		return backends.Started{}, err
	}
	if run != nil && run.workspace != nil {
		defer run.workspace.Close()
	}
	m := <-made
	cg, lim, cgErr := m.cg, m.lim, m.err
	if cgErr != nil {
		// one line: what was not made, each reason after the other
		b.tell(ctx, spec.ID, "limits not all enforced: "+strings.ReplaceAll(cgErr.Error(), "\n", "; "))
	}
	if lim.pids == 0 {
		b.tell(ctx, spec.ID, "process limit not enforced: no cgroup with a pids controller this user may write")
	}
	l := layout{
		Name: spec.Name, ImageRoot: imageRoot, HostImage: host, StateDir: spec.StateDir,
		Workspace: spec.Workspace, Network: spec.Network, Agent: b.agent, Interp: b.interp, Libs: b.libs,
		CgroupJoin: cg.joinFiles(), NestedUserns: spec.NestedUserns,
		Trust: planTrust(os.Getenv, os.Stat, filepath.EvalSymlinks, host, b.asRoot),
	}
	sb, err := b.spawn(ctx, spec.ID, l, img, run, pre)
	if err != nil {
		cg.remove()
		return backends.Started{}, err
	}
	sb.cg, sb.limitMiB, sb.pidsLimit = cg, lim.memoryMiB, lim.pids
	if err := b.awaitAgent(ctx, sb); err != nil {
		b.kill(sb)
		cg.remove()
		clearCtl(sb.ctl)
		return backends.Started{}, err
	}
	closeCtl(sb.ctl, logFileName) // read only when a start fails
	b.mu.Lock()
	b.running[spec.ID] = sb
	b.mu.Unlock()
	go b.watch(sb)
	// the disk is not limited: home and /tmp live in the sandbox's folder
	// on the root's file system, which has no per-folder quota we can set
	return backends.Started{MemoryLimitMiB: lim.memoryMiB, PidsLimit: lim.pids}, nil
}

// madeCgroup is what makeCgroup returned.
type madeCgroup struct {
	cg  *cgroup
	lim limits
	err error
}

// makeCgroupAsync makes the sandbox's cgroup in the background, with the
// limits the controller decided; the backend only enforces them.
func (b *Backend) makeCgroupAsync(spec backends.Spec) <-chan madeCgroup {
	pids := spec.Pids
	if pids == 0 {
		pids = defaultPids(hostPidSpace())
	}
	made := make(chan madeCgroup, 1)
	go func() {
		cg, lim, err := makeCgroup(spec.ID, spec.MemoryMiB, spec.CPUs, pids)
		made <- madeCgroup{cg, lim, err}
	}()
	return made
}

// get finds a running sandbox, adopting one a previous process started.
func (b *Backend) get(id string) (*sandbox, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if sb, ok := b.running[id]; ok {
		select {
		case <-sb.exited:
			return nil, false // its watcher is telling the controller
		default:
			return sb, true
		}
	}
	ctl := b.ctlDir(id)
	p, ok := readPidFile(ctl)
	if !ok {
		return nil, false
	}
	if !p.alive(id) {
		// its bwrap ended while no controller watched: end what it left
		endHeldLauncher(&sandbox{pid: p})
		sweep(id, p)
		killNAT(&sandbox{pid: p})
		clearCtl(ctl)
		return nil, false
	}
	sb := &sandbox{id: id, ctl: ctl, pid: p, cg: findCgroup(id), exited: make(chan struct{})}
	sb.oomsSeen, sb.limitMiB = sb.cg.ooms(), sb.cg.memoryLimitMiB()
	sb.pidsSeen, sb.pidsLimit = sb.cg.pidsHits(), sb.cg.pidsLimit()
	awaitAdopted(sb)
	b.running[id] = sb
	go b.watch(sb)
	return sb, true
}

// HandsOver says that Exec offers its connection to the agent, a Unix
// socket of the controller's own, to the request's HandOver.
func (b *Backend) HandsOver() {}

// Exec runs a command through the sandbox's agent.
func (b *Backend) Exec(ctx context.Context, id string, req backends.ExecRequest) (int, error) {
	sb, ok := b.get(id)
	if !ok {
		return -1, backends.ErrNotRunning
	}
	code, err := agent.Exec(ctx, b.dialer(sb), agent.Request{Args: req.Args, Env: req.Env, Dir: req.Dir, TTY: req.TTY},
		stream.IO{Stdin: req.Stdin, Stdout: req.Stdout, Stderr: req.Stderr, Signals: req.Signals, Resizes: req.Resizes, HandOver: req.HandOver})
	var se *agent.StartError
	if errors.As(err, &se) && se.Kind == agent.RefusedInvalid {
		return -1, &backends.InvalidError{Message: se.Message}
	}
	if errors.As(err, &se) {
		// as a shell reports a command it cannot run
		if req.Stderr != nil {
			fmt.Fprintf(req.Stderr, "sandboxdesk: %s\n", se.Message)
		}
		code, err = 127, nil
	}
	b.checkOOM(ctx, id, sb)
	return code, err
}

// checkOOM tells the controller about processes the kernel killed for
// want of memory, and forks the process limit refused, since the last look.
func (b *Backend) checkOOM(ctx context.Context, id string, sb *sandbox) {
	if sb.cg == nil {
		return
	}
	n, hits := sb.cg.ooms(), sb.cg.pidsHits()
	b.mu.Lock()
	fresh, freshHits := n-sb.oomsSeen, hits-sb.pidsSeen
	sb.oomsSeen, sb.pidsSeen = n, hits
	b.mu.Unlock()
	if fresh > 0 {
		b.tellEvent(ctx, backends.Event{ID: id, OOMKills: fresh,
			Message: fmt.Sprintf("out of memory: the kernel killed %d process(es) at the %d MiB limit", fresh, sb.limitMiB)})
	}
	if freshHits > 0 {
		b.tellEvent(ctx, backends.Event{ID: id, PidsLimitHits: freshHits,
			Message: fmt.Sprintf("process limit: %d new process(es) refused at the limit of %d", freshHits, sb.pidsLimit)})
	}
}

// Stop asks every process to end, waits up to grace, then ends the
// sandbox.
func (b *Backend) Stop(ctx context.Context, id string, grace time.Duration) (backends.Stopped, error) {
	sb, ok := b.get(id)
	if !ok {
		findCgroup(id).remove()
		return backends.Stopped{}, nil
	}
	b.mu.Lock()
	sb.stopping = true
	b.mu.Unlock()
	if grace > 0 && !sb.runsOnlyItself() {
		tctx, cancel := context.WithTimeout(ctx, grace+2*time.Second)
		agent.Call(tctx, b.dialer(sb), agent.Request{Op: "terminate", GraceMs: grace.Milliseconds()})
		cancel()
	}
	b.checkOOM(ctx, id, sb)
	signalNAT(sb) // it ends while the sandbox and the rest are cleared away
	// the control files go while the kernel ends the sandbox: once every
	// process of it has its kill, nothing of it runs again, and nothing is
	// left for a successor to find by its pid file (see end)
	gone, cleared := b.end(sb, func() { clearCtl(sb.ctl) })
	if !gone {
		sweep(id, sb.pid)
	}
	if sb.cg != nil {
		sb.cg.remove()
	}
	if !cleared {
		clearCtl(sb.ctl)
	}
	awaitNAT(sb)
	b.releaseTap(sb)
	b.mu.Lock()
	delete(b.running, id)
	b.mu.Unlock()
	return backends.Stopped{}, nil
}

// kill ends the sandbox and its NAT helper.
func (b *Backend) kill(sb *sandbox) {
	b.end(sb, nil)
	killNAT(sb)
	b.releaseTap(sb)
}

// end ends the sandbox: its init (the bwrap monitor's child, pid 1 of the
// sandbox's pid namespace) first, which makes the kernel kill every
// process of the namespace, then the monitor. It returns once both are
// gone: the init ends last of the namespace, so by then no process of the
// sandbox is left in its cgroups. (The monitor, killed too, may well end
// before its init does.) It reports whether it saw both end, which leaves
// nothing for a sweep to find; it cannot see that of an init that was
// no longer the monitor's child (the monitor killed by another first),
// nor where the kernel has no pidfds (before 5.3).
//
// meanwhile, when not nil, runs while the kernel ends the processes (a
// process's end, its namespaces' tear-down, takes a while), but only
// once every one of them has been sent its kill and can be watched to
// its end: what it clears away, a successor would only have needed to
// find processes of the sandbox that may live on. ran says whether it
// ran; it has returned by then.
func (b *Backend) end(sb *sandbox, meanwhile func()) (gone, ran bool) {
	var inits []int // pidfds
	var mounts []int
	defer func() { b.letGoOfMounts(mounts) }()
	seen := sb.pid.alive(sb.id)
	if !seen {
		endHeldLauncher(sb)
	}
	killed := seen // every kill sent
	if seen {
		mounts = holdMounts(mounts, sb.pid.Pid)
		for _, child := range children(sb.pid.Pid) {
			fd, err := unix.PidfdOpen(child, 0)
			if err == nil && parentOf(child) != sb.pid.Pid {
				unix.Close(fd) // ended since, and its pid is another's
				continue
			}
			if err == nil {
				inits = append(inits, fd)
				mounts = holdMounts(mounts, child)
			} else {
				seen = false
			}
			if syscall.Kill(child, syscall.SIGKILL) != nil {
				killed = false
			}
		}
		if syscall.Kill(sb.pid.Pid, syscall.SIGKILL) != nil {
			killed = false
		}
	}
	if meanwhile != nil && seen && killed && len(inits) > 0 {
		done := make(chan struct{})
		go func() { meanwhile(); close(done) }()
		defer func() { <-done }()
		ran = true
	}
	deadline := time.Now().Add(10 * time.Second)
	select {
	case <-sb.exited:
	case <-time.After(time.Until(deadline)):
		seen = false
	}
	for _, fd := range inits {
		if !awaitExit(fd, deadline) {
			seen = false
		}
		unix.Close(fd)
	}
	return seen && len(inits) > 0, ran
}

// endHeldLauncher kills the launcher of sb when it has had its plan but
// is not yet bwrap (held up: a stopped or starved process, a slow mount).
// Its command line names no sandbox yet, so that neither alive nor a
// sweep takes it for the sandbox's; left, it would go on to start the
// sandbox after its start had failed, its stop returned, or a successor
// had found it gone. The launcher this process started is killed through
// its handle, which cannot name another process once it has ended; one a
// previous controller started, when the process of the pid file is still
// a launcher after readCmdline's wait: the pid file names one only once
// it is the sandbox's.
func endHeldLauncher(sb *sandbox) {
	if sb.proc != nil {
		sb.proc.Kill()
		return
	}
	if st, ok := startTime(sb.pid.Pid); !ok || st != sb.pid.StartTime {
		return
	}
	if b, err := readProc(fmt.Sprintf("/proc/%d/cmdline", sb.pid.Pid)); err == nil && waitingLauncher(b) {
		syscall.Kill(sb.pid.Pid, syscall.SIGKILL)
	}
}

// holdMounts adds to held a descriptor of the mount namespace of pid, a
// process of the sandbox about to be killed (its monitor, or its init,
// which shares its namespace with every process of the sandbox). Held, the
// namespace is no longer those processes' alone: the last of them to end
// does not take its tear-down with it (every mount's release, then an RCU
// grace period, some 0.3 to 1 ms), which letGoOfMounts does after.
func holdMounts(held []int, pid int) []int {
	fd, err := unix.Open(fmt.Sprintf("/proc/%d/ns/mnt", pid), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return held
	}
	return append(held, fd)
}

// letGoOfMounts lets go of the mount namespaces holdMounts held, in the
// background: their processes are gone, and so nothing in them runs.
func (b *Backend) letGoOfMounts(held []int) {
	if len(held) == 0 {
		return
	}
	b.tapsClosing.Add(1)
	go func() {
		defer b.tapsClosing.Done()
		for _, fd := range held {
			unix.Close(fd)
		}
	}()
}

// awaitExit waits until the process of pidfd fd has exited (it becomes
// readable then), or the deadline has passed; it reports whether it saw
// the exit.
func awaitExit(fd int, deadline time.Time) bool {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		ms := int(time.Until(deadline).Milliseconds())
		if ms <= 0 {
			return false
		}
		n, err := unix.Poll(fds, ms)
		if n > 0 {
			return true
		}
		if err != nil && !errors.Is(err, unix.EINTR) {
			return false
		}
	}
}

// Remove stops the sandbox if it runs; Stop also deletes its cgroup,
// running or not; its host uid is freed. Its control folder goes with
// it; its other folders are the controller's to delete.
func (b *Backend) Remove(ctx context.Context, id string) error {
	_, err := b.Stop(ctx, id, 0)
	if b.asRoot {
		b.forgetMapping(b.stateDir(id))
		b.uids.release(b.stateDir(id))
		b.mapAhead()
	}
	if err != nil {
		return err
	}
	if err := os.RemoveAll(b.ctlDir(id)); err != nil {
		return fmt.Errorf("remove the sandbox's control folder: %w", err)
	}
	return nil
}

// Observe lists the sandboxes of this root that have a bwrap on record,
// and whether it still runs.
func (b *Backend) Observe(ctx context.Context) ([]backends.Observed, error) {
	b.endLegacy()
	entries, err := os.ReadDir(filepath.Join(b.root, controlFolder))
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	var out []backends.Observed
	for _, e := range entries {
		if _, ok := readPidFile(b.ctlDir(e.Name())); !ok {
			continue
		}
		sb, running := b.get(e.Name())
		o := backends.Observed{ID: e.Name(), Running: running}
		if running {
			o.MemoryLimitMiB = sb.limitMiB // what it holds, for the reuse rule
		}
		out = append(out, o)
	}
	return out, nil
}
