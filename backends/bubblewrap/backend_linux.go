package bubblewrap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

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
	// Agent is the binary that serves as the agent inside sandboxes; the
	// running executable when empty. It must run the agent (agent.Main)
	// when given agent.Command as its first argument.
	Agent string
	// Bwrap is the bwrap binary; looked up in PATH when empty.
	Bwrap string
	// UIDRegistry is where a root controller records the host uid of
	// each sandbox, shared by every root on the host;
	// DefaultUIDRegistry when empty.
	UIDRegistry string
}

// Backend runs sandboxes with bubblewrap.
type Backend struct {
	root   string
	bwrap  string
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
}

// sandbox is one running sandbox.
type sandbox struct {
	stateDir string
	pid      pidFile
	cg       *cgroup
	limitMiB int64
	oomsSeen int
	// pidsLimit is the enforced process limit (0: none); pidsSeen the
	// forks it had refused at the last look
	pidsLimit int64
	pidsSeen  int
	exited    chan struct{} // closed when a bwrap this process started ends; nil when adopted
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

	src := cfg.Agent
	if src == "" {
		if src, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("find the agent binary: %w", err)
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
	// a file of its own, renamed into place: two controllers starting on
	// one root at once (only one will keep it) never see half a binary
	out, err := os.CreateTemp(dir, ".agent-*")
	if err != nil {
		return "", fmt.Errorf("install agent: %w", err)
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(out.Name(), 0o755)
	}
	if err == nil {
		err = os.Rename(out.Name(), dst)
	}
	if err != nil {
		os.Remove(out.Name())
		return "", fmt.Errorf("install agent: %w", err)
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

func (b *Backend) stateDir(id string) string { return filepath.Join(b.root, "sandboxes", id) }

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
func (b *Backend) Start(ctx context.Context, spec backends.Spec, defaultMemoryMiB int64) (backends.Started, error) {
	if err := b.Check(ctx); err != nil {
		return backends.Started{}, err
	}
	imageRoot, host, err := b.imageRoot(spec.Image)
	if err != nil {
		return backends.Started{}, err
	}
	img, err := scanImage(imageRoot, host)
	if err != nil {
		return backends.Started{}, err
	}
	run, err := b.prepare(ctx, spec)
	if err != nil {
		return backends.Started{}, err
	}
	if run != nil && run.workspace != nil {
		defer run.workspace.Close()
	}
	mem := spec.MemoryMiB
	if mem == 0 {
		mem = defaultMemoryMiB
	}
	pids := spec.Pids
	if pids == 0 {
		pids = defaultPids(hostPidSpace())
	}
	cg, lim, cgErr := makeCgroup(spec.ID, mem, spec.CPUs, pids)
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
		CgroupProcs: cg.procsFiles(), NestedUserns: spec.NestedUserns,
		Trust: planTrust(os.Getenv, os.Stat, filepath.EvalSymlinks, host, b.asRoot),
	}
	sb, err := b.spawn(l, img, run)
	if err != nil {
		cg.remove()
		return backends.Started{}, err
	}
	sb.cg, sb.limitMiB, sb.pidsLimit = cg, lim.memoryMiB, lim.pids
	if err := b.awaitAgent(ctx, sb); err != nil {
		b.kill(sb)
		cg.remove()
		return backends.Started{}, err
	}
	b.mu.Lock()
	b.running[spec.ID] = sb
	b.mu.Unlock()
	// the disk is not limited: home and /tmp live in the sandbox's folder
	// on the root's file system, which has no per-folder quota we can set
	return backends.Started{MemoryLimitMiB: lim.memoryMiB, PidsLimit: lim.pids}, nil
}

// get finds a running sandbox, adopting one a previous process started.
func (b *Backend) get(id string) (*sandbox, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if sb, ok := b.running[id]; ok {
		if sb.pid.alive(sb.stateDir) {
			return sb, true
		}
		delete(b.running, id)
		return nil, false
	}
	dir := b.stateDir(id)
	p, ok := readPidFile(dir)
	if !ok || !p.alive(dir) {
		return nil, false
	}
	sb := &sandbox{stateDir: dir, pid: p, cg: findCgroup(id)}
	sb.oomsSeen, sb.pidsSeen = sb.cg.ooms(), sb.cg.pidsHits()
	b.running[id] = sb
	return sb, true
}

// Exec runs a command through the sandbox's agent.
func (b *Backend) Exec(ctx context.Context, id string, req backends.ExecRequest) (int, error) {
	sb, ok := b.get(id)
	if !ok {
		return -1, backends.ErrNotRunning
	}
	code, err := agent.Exec(ctx, b.dialer(sb.stateDir), agent.Request{Args: req.Args, Env: req.Env, Dir: req.Dir, TTY: req.TTY},
		stream.IO{Stdin: req.Stdin, Stdout: req.Stdout, Stderr: req.Stderr, Signals: req.Signals, Resizes: req.Resizes})
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
	if grace > 0 {
		tctx, cancel := context.WithTimeout(ctx, grace+2*time.Second)
		agent.Call(tctx, b.dialer(sb.stateDir), agent.Request{Op: "terminate", GraceMs: grace.Milliseconds()})
		cancel()
	}
	b.checkOOM(ctx, id, sb)
	b.kill(sb)
	if sb.cg != nil {
		sb.cg.remove()
	}
	os.Remove(pidPath(sb.stateDir))
	os.Remove(filepath.Join(sb.stateDir, "run", "agent.sock"))
	b.mu.Lock()
	delete(b.running, id)
	b.mu.Unlock()
	return backends.Stopped{}, nil
}

// kill ends the sandbox: its init (the bwrap monitor's child, pid 1 of the
// sandbox's pid namespace) first, which makes the kernel kill every
// process of the namespace, then the monitor.
func (b *Backend) kill(sb *sandbox) {
	if sb.pid.alive(sb.stateDir) {
		for _, child := range children(sb.pid.Pid) {
			syscall.Kill(child, syscall.SIGKILL)
		}
		syscall.Kill(sb.pid.Pid, syscall.SIGKILL)
	}
	if sb.exited != nil {
		select {
		case <-sb.exited:
		case <-time.After(10 * time.Second):
		}
		return
	}
	for i := 0; i < 500 && sb.pid.alive(sb.stateDir); i++ {
		time.Sleep(10 * time.Millisecond)
	}
}

// Remove stops the sandbox if it runs; Stop also deletes its cgroup,
// running or not; its host uid is freed. Its folders are the
// controller's to delete.
func (b *Backend) Remove(ctx context.Context, id string) error {
	_, err := b.Stop(ctx, id, 0)
	if b.asRoot {
		b.forgetMapping(b.stateDir(id))
		b.uids.release(b.stateDir(id))
	}
	return err
}

// Observe lists the sandboxes of this root that have a bwrap on record,
// and whether it still runs.
func (b *Backend) Observe(ctx context.Context) ([]backends.Observed, error) {
	entries, err := os.ReadDir(filepath.Join(b.root, "sandboxes"))
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	var out []backends.Observed
	for _, e := range entries {
		if _, ok := readPidFile(b.stateDir(e.Name())); !ok {
			continue
		}
		_, running := b.get(e.Name())
		out = append(out, backends.Observed{ID: e.Name(), Running: running})
	}
	return out, nil
}
