package bubblewrap

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// A root controller keeps one sandbox launcher ready: forked and started
// ahead (a Go runtime and the packages of this binary take some
// milliseconds), waiting for a plan on a socket. A start takes it and
// sends it the plan and bwrap's command line as one message, with the
// descriptors bwrap's command line names; the next one is forked as soon
// as the plan is sent, while the controller waits for the sandbox to come
// up. The message is the start gate: it is sent once the pid file is
// written, and a controller that ends or gives up first closes the
// socket, so the launcher ends without starting anything. Until its plan comes, a launcher is no sandbox's: nothing of
// it depends on which (its mount namespace is made when the plan comes,
// so that it holds the host's mounts of that moment, not of its fork).
const prelaunchCommand = "__sandboxdesk_bwrap_prelaunch"

// launchSlots descriptors, from 3, are held for bwrap's descriptors in
// the prelauncher from its start (/dev/null until the plan comes), so
// that nothing its runtime opens takes their numbers; its end of the
// socket is the one after them. bwrap takes about ten (one per CA file
// the host's variables name among them).
const launchSlots = 64

// planSocketFD is the prelauncher's end of the socket.
const planSocketFD = 3 + launchSlots

// maxPlan bounds the message: the plan and a full bwrap command line.
const maxPlan = 1 << 20

// planMessage is what the controller sends the prelauncher.
type planMessage struct {
	Plan  json.RawMessage `json:"plan"`
	Bwrap []string        `json:"bwrap"`
	// Files is how many descriptors come with the message for bwrap, at
	// 3 onwards; one more follows, for stdout and stderr.
	Files int `json:"files"`
}

// prelaunched is a launcher that waits for its plan.
type prelaunched struct {
	plan *os.File // the controller's end of the socket
	sb   *sandbox // its record: pid, proc, exited and reason are set
	sent bool
}

// prelaunch forks a launcher. Its command line names no sandbox; a pid
// file that names it is waited through until it becomes the sandbox's
// bwrap, or ends (see readCmdline).
func (b *Backend) prelaunch() (*prelaunched, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("start sandbox: %w", err)
	}
	mine, theirs := os.NewFile(uintptr(fds[0]), "plan"), os.NewFile(uintptr(fds[1]), "plan")
	defer theirs.Close()
	null, err := os.Open(os.DevNull)
	if err != nil {
		mine.Close()
		return nil, fmt.Errorf("start sandbox: %w", err)
	}
	defer null.Close()
	extra := make([]*os.File, launchSlots+1)
	for i := range launchSlots {
		extra[i] = null
	}
	extra[launchSlots] = theirs // planSocketFD
	cmd := exec.Command("/proc/self/exe", prelaunchCommand)
	cmd.Dir = "/"
	cmd.Env = bwrapEnv
	cmd.ExtraFiles = extra
	cmd.Stdin, cmd.Stdout, cmd.Stderr = null, null, null
	// its own session: the sandbox outlives a controller that is killed,
	// and the next one adopts it
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := startInOwnKeyring(cmd, nil); err != nil {
		mine.Close()
		return nil, fmt.Errorf("start bwrap: %w", err)
	}
	st, _ := startTime(cmd.Process.Pid)
	sb := &sandbox{pid: pidFile{Pid: cmd.Process.Pid, StartTime: st}, exited: make(chan struct{}), proc: cmd.Process}
	go func() {
		cmd.Wait()
		sb.reason = exitReason(cmd.ProcessState)
		close(sb.exited)
	}()
	return &prelaunched{plan: mine, sb: sb}, nil
}

// pendingLaunch is a prelaunch under way: the fork and the exec take a
// while too, and overlap the rest of a start as well.
type pendingLaunch struct {
	done chan struct{}
	p    *prelaunched
	err  error
}

// prelaunchAsync forks a launcher. A spare (idle) one is then given the
// SCHED_IDLE policy: its start takes some milliseconds of processor,
// which it should take only from a processor that would idle, not from
// whatever runs next. (The fork and exec themselves run at the normal
// policy: Go holds syscall.ForkLock until the child has executed, and an
// idle child would hold up every other start behind it on a busy host.)
func (b *Backend) prelaunchAsync(idle bool) *pendingLaunch {
	pl := &pendingLaunch{done: make(chan struct{})}
	go func() {
		pl.p, pl.err = b.prelaunch()
		if idle && pl.err == nil {
			setSched(pl.p.sb.pid.Pid, unix.SCHED_IDLE)
		}
		b.mu.Lock()
		if b.launched != nil && pl.p != nil {
			b.launched(pl.p.sb.pid.Pid)
		}
		b.mu.Unlock()
		close(pl.done)
	}()
	return pl
}

// launcher is the spare launcher, or a new one when there is none (the
// first start, or two at once).
func (b *Backend) launcher() *pendingLaunch {
	b.mu.Lock()
	defer b.mu.Unlock()
	if pl := b.spare; pl != nil {
		b.spare = nil
		return pl
	}
	return b.prelaunchAsync(false)
}

// keepSpare forks the next spare launcher, unless one is there.
func (b *Backend) keepSpare() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.spare == nil {
		b.spare = b.prelaunchAsync(true)
	}
}

// wait returns the launcher once it runs.
func (pl *pendingLaunch) wait() (*prelaunched, error) {
	<-pl.done
	return pl.p, pl.err
}

// release is a start's last word on its launcher: one that never had its
// plan (the start failed before: an image that does not read, a full
// disk) and still runs becomes the spare when there is none, so the next
// start does not pay for a launcher again; any other is ended.
func (b *Backend) release(pl *pendingLaunch) {
	p, _ := pl.wait()
	if p == nil || p.sent {
		return
	}
	b.mu.Lock()
	if b.spare == nil && !p.ended() {
		b.spare = pl
		b.mu.Unlock()
		return
	}
	b.mu.Unlock()
	p.abort()
}

// abort ends a launcher that has not had its plan, and reaps it. The
// closed socket alone would end it; the kill spares the wait for a
// runtime still starting.
func (p *prelaunched) abort() {
	if p == nil || p.sent {
		return
	}
	p.plan.Close()
	p.sb.proc.Kill()
	<-p.sb.exited
}

// ended reports whether the launcher has ended.
func (p *prelaunched) ended() bool {
	select {
	case <-p.sb.exited:
		return true
	default:
		return false
	}
}

// send lets the launcher through with its plan, bwrap's command line and
// descriptors, and log for its stdout and stderr. The pid file must be
// written first.
func (p *prelaunched) send(args []string, files []*os.File, log *os.File) error {
	if len(args) < 4 || args[1] != launchCommand {
		return errors.New("not a launcher's command line")
	}
	if len(files) > launchSlots {
		return fmt.Errorf("%d descriptors for bwrap, at most %d", len(files), launchSlots)
	}
	msg, err := json.Marshal(planMessage{Plan: json.RawMessage(args[2]), Bwrap: args[3:], Files: len(files)})
	if err != nil {
		return err
	}
	fds := make([]int, 0, len(files)+1)
	for _, f := range append(files, log) {
		fds = append(fds, int(f.Fd()))
	}
	if err := unix.Sendmsg(int(p.plan.Fd()), msg, unix.UnixRights(fds...), nil, 0); err != nil {
		return fmt.Errorf("send the launcher its plan: %w", err)
	}
	p.sent = true
	p.plan.Close() // the launcher needs nothing more
	return nil
}

// prelaunchMain runs "BINARY prelaunchCommand": it waits for its
// plan, puts its descriptors in place, then does what launchMain does.
func prelaunchMain() int {
	setSched(os.Getpid(), unix.SCHED_NORMAL) // its start is over (see prelaunchAsync)
	msg, err := receivePlan()
	if err != nil {
		fmt.Fprintln(os.Stderr, "sandboxdesk: start sandbox:", err)
		return 125
	}
	var p launchPlan
	if err := json.Unmarshal(msg.Plan, &p); err != nil || len(msg.Bwrap) == 0 {
		fmt.Fprintln(os.Stderr, "sandboxdesk: start sandbox: a plan that does not read:", err)
		return 125
	}
	if err := ownMountNamespace(); err != nil {
		fmt.Fprintln(os.Stderr, "sandboxdesk: start sandbox:", err)
		return 125
	}
	if err := p.run(msg.Bwrap); err != nil {
		fmt.Fprintln(os.Stderr, "sandboxdesk: start sandbox:", err)
		return 125
	}
	return 0 // not reached: run executes bwrap
}

// receivePlan reads the one message, then lays out the descriptors: those
// for bwrap at 3 onwards, the log at stdout and stderr. What is left of
// the slots and the socket is closed; nothing else of the launcher is
// inherited by bwrap (Go opens its own close-on-exec, as are the
// descriptors received until they are put in place).
func receivePlan() (planMessage, error) {
	var msg planMessage
	buf := make([]byte, maxPlan)
	oob := make([]byte, unix.CmsgSpace(4*(launchSlots+1)))
	var n, oobn, flags int
	var err error
	for {
		n, oobn, flags, _, err = unix.Recvmsg(planSocketFD, buf, oob, unix.MSG_CMSG_CLOEXEC)
		if err != unix.EINTR {
			break
		}
	}
	var fds []int
	if err == nil && oobn > 0 {
		cmsgs, perr := unix.ParseSocketControlMessage(oob[:oobn])
		for _, c := range cmsgs {
			if got, rerr := unix.ParseUnixRights(&c); rerr == nil {
				fds = append(fds, got...)
			}
		}
		if perr != nil {
			err = perr
		}
	}
	unix.Close(planSocketFD)
	fail := func(err error) (planMessage, error) {
		for _, fd := range fds {
			unix.Close(fd)
		}
		return msg, err
	}
	switch {
	case err != nil:
		return fail(fmt.Errorf("read the plan: %w", err))
	case n == 0:
		return fail(errors.New("the controller was gone before it let the sandbox start"))
	case flags&(unix.MSG_TRUNC|unix.MSG_CTRUNC) != 0:
		return fail(errors.New("the plan did not fit"))
	}
	if err := json.Unmarshal(buf[:n], &msg); err != nil {
		return fail(fmt.Errorf("read the plan: %w", err))
	}
	if msg.Files < 0 || msg.Files > launchSlots || len(fds) != msg.Files+1 {
		return fail(fmt.Errorf("the plan names %d descriptors, %d came", msg.Files, len(fds)))
	}
	// the slots are all taken until here, so no descriptor received has
	// the number of one
	for i, fd := range fds[:msg.Files] {
		if err := unix.Dup3(fd, 3+i, 0); err != nil {
			return fail(fmt.Errorf("pass descriptor %d on: %w", 3+i, err))
		}
	}
	log := fds[msg.Files]
	for _, std := range []int{1, 2} {
		if err := unix.Dup3(log, std, 0); err != nil {
			return fail(fmt.Errorf("pass the log on: %w", err))
		}
	}
	for _, fd := range fds {
		unix.Close(fd)
	}
	if err := unix.CloseRange(uint(3+msg.Files), 3+launchSlots-1, 0); err != nil {
		for fd := 3 + msg.Files; fd < 3+launchSlots; fd++ { // before Linux 5.9
			unix.Close(fd)
		}
	}
	return msg, nil
}

// ownMountNamespace puts the calling thread, the one that mounts the
// alias and then executes bwrap, in a mount namespace of its own, a copy
// of the host's as it is now, in which nothing propagates back; what Go
// does for a child started with CLONE_NEWNS. The thread stays locked: the
// other threads of the runtime stay in the host's namespace, and end at
// the exec.
func ownMountNamespace() error {
	runtime.LockOSThread()
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		return fmt.Errorf("a mount namespace of its own: %w", err)
	}
	if err := unix.Mount("none", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("a mount namespace of its own: %w", err)
	}
	return nil
}

// setSched gives every thread of process pid the scheduling policy; the
// threads it starts later inherit it from theirs.
func setSched(pid int, policy uint32) {
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	for _, t := range tasks {
		if tid, err := strconv.Atoi(t.Name()); err == nil {
			unix.SchedSetAttr(tid, &unix.SchedAttr{Policy: policy}, 0)
		}
	}
}
