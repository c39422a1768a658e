package bubblewrap

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// natLogName is the NAT helper's log, in the sandbox's control folder.
const natLogName = "net.log"

// errNoSlirp is the start error when network "on" is asked of a host
// without its NAT helper: never a silent fallback to the host's network.
var errNoSlirp = errors.New("a sandbox's own network needs slirp4netns, which is not installed: install the slirp4netns package (apt-get install slirp4netns), or create the sandbox with --network off")

// privateTun gives the calling OS thread a mount namespace of its own
// with a /dev/net/tun that uid and gid may open: a NAT helper the thread
// then starts as that user makes the sandbox's interface with it, and the
// host's own node may be root's alone. Nothing else on the host, the rest
// of the controller included, sees that node. The thread must be locked
// and never unlocked (it ends with its goroutine), as in
// startInOwnKeyring; doing it here, not in a shell script, spares the NAT
// helper's start five programs (sh, mount, mknod, chown, setpriv).
func privateTun(uid, gid int) error {
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		return fmt.Errorf("give the sandbox's network its own tun device: %w", err)
	}
	// as unshare(1) does: nothing mounted here reaches the host's
	// namespace through a shared /
	if err := unix.Mount("none", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("give the sandbox's network its own tun device: %w", err)
	}
	if err := unix.Mount("sandboxdesk-tun", "/dev/net", "tmpfs", unix.MS_NOSUID|unix.MS_NOEXEC, "mode=0755,size=4k"); err != nil {
		return fmt.Errorf("give the sandbox's network its own tun device: %w", err)
	}
	if err := unix.Mknod("/dev/net/tun", unix.S_IFCHR|0o600, int(unix.Mkdev(10, 200))); err != nil {
		return fmt.Errorf("give the sandbox's network its own tun device: %w", err)
	}
	// Mknod's mode is masked by the umask; the node must be the user's
	// alone whatever the umask is
	if err := unix.Chmod("/dev/net/tun", 0o600); err != nil {
		return fmt.Errorf("give the sandbox's network its own tun device: %w", err)
	}
	if err := unix.Chown("/dev/net/tun", uid, gid); err != nil {
		return fmt.Errorf("give the sandbox's network its own tun device: %w", err)
	}
	return nil
}

// checkNAT says what to install or change when a sandbox with network
// "on" cannot have its NAT here: slirp4netns, and a /dev/net/tun this user
// may open (as root the backend makes its own, see privateTun).
func (b *Backend) checkNAT() error {
	if b.slirp == "" {
		return errNoSlirp
	}
	if b.asRoot || unix.Access("/dev/net/tun", unix.R_OK|unix.W_OK) == nil {
		return nil
	}
	return errors.New("a sandbox's own network needs /dev/net/tun, which this user cannot open: give it the usual mode (sudo chmod 0666 /dev/net/tun, as Debian's udev does) or create the sandbox with --network off")
}

// bwrapInfo is what bwrap writes to --info-fd once the sandbox's
// namespaces exist.
type bwrapInfo struct {
	ChildPid int    `json:"child-pid"`
	NetNS    uint64 `json:"net-namespace"`
}

// natPipes are the two pipes between bwrap and its NAT helper: bwrap
// writes its info to one and holds the other open while it lives.
type natPipes struct {
	infoR, infoW *os.File
	syncR, syncW *os.File
	// the thread that starts the helper, ready before bwrap starts (see
	// newNATPipes); nil once used
	starter *starter
	mnt     int // the helper's mount namespace, held (see holdMountNS), or -1
}

// newNATPipes makes the pipes between bwrap and the NAT, and the thread
// that starts the NAT helper: as root (run set), that thread's private
// /dev/net/tun is made while bwrap starts, not after it (its mount
// namespace is the host's copied, which waits on the kernel's mount lock
// while bwrap mounts the sandbox's root).
func newNATPipes(run *sandboxRun) (*natPipes, error) {
	p := &natPipes{mnt: -1}
	var err error
	if p.infoR, p.infoW, err = os.Pipe(); err != nil {
		return nil, fmt.Errorf("start sandbox network: %w", err)
	}
	if p.syncR, p.syncW, err = os.Pipe(); err != nil {
		p.close()
		return nil, fmt.Errorf("start sandbox network: %w", err)
	}
	var prepare func() error
	var discarded func()
	if run != nil {
		prepare = func() error {
			if err := privateTun(run.user.uid, run.user.gid); err != nil {
				return err
			}
			p.mnt = holdMountNS()
			return nil
		}
		discarded = func() {
			if p.mnt >= 0 {
				unix.Close(p.mnt)
			}
		}
	}
	p.starter = newStarter(prepare, discarded)
	return p, nil
}

// bwrapFiles are bwrap's ExtraFiles: infoFD and syncFD.
func (p *natPipes) bwrapFiles() []*os.File { return []*os.File{p.infoW, p.syncW} }

// closeBwrapEnds drops this process's copies of bwrap's ends, so the
// helper sees the sandbox's end, not the controller's.
func (p *natPipes) closeBwrapEnds() {
	p.infoW.Close()
	p.syncW.Close()
}

func (p *natPipes) close() {
	if p.starter != nil {
		p.starter.discard()
		p.starter = nil
	}
	for _, f := range []*os.File{p.infoR, p.infoW, p.syncR, p.syncW} {
		if f != nil {
			f.Close()
		}
	}
}

// startNAT gives the sandbox bwrap is starting its NAT: it reads the
// sandbox's pid from bwrap, opens its network namespace and the user
// namespace that owns it, and starts slirp4netns on them, as the sandbox's
// host user and in a session of its own, so it outlives a controller that
// dies as the sandbox does. It returns once the sandbox's interface is up.
// As root, run says which host user the sandbox runs as.
func (b *Backend) startNAT(ctx context.Context, sb *sandbox, p *natPipes, run *sandboxRun) error {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	info, err := readInfo(ctx, p.infoR)
	if err != nil {
		return err
	}
	if err := awaitIDMaps(ctx, info.ChildPid); err != nil {
		return err
	}
	netns, err := os.Open(fmt.Sprintf("/proc/%d/ns/net", info.ChildPid))
	if err != nil {
		return fmt.Errorf("open the sandbox's network namespace: %w", err)
	}
	defer netns.Close()
	// the namespace bwrap named, not one a reused pid might have
	var st unix.Stat_t
	if err := unix.Fstat(int(netns.Fd()), &st); err != nil || st.Ino != info.NetNS {
		return fmt.Errorf("open the sandbox's network namespace: pid %d is no longer the sandbox", info.ChildPid)
	}
	// the user namespace bwrap made first owns the network namespace; the
	// one its child runs in is a nested one with no power over it
	fd, err := unix.IoctlRetInt(int(netns.Fd()), unix.NS_GET_USERNS)
	if err != nil {
		return fmt.Errorf("find the sandbox's user namespace: %w", err)
	}
	userns := os.NewFile(uintptr(fd), "userns")
	defer userns.Close()

	readyR, readyW, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("start sandbox network: %w", err)
	}
	defer readyR.Close()
	logf, err := createCtl(sb.ctl, natLogName)
	if err != nil {
		readyW.Close()
		return fmt.Errorf("start sandbox network: %w", err)
	}
	defer logf.Close()
	// ExtraFiles start at descriptor 3
	args := natArgs(b.slirp, 3, 4, 5, 6)
	attr := &syscall.SysProcAttr{Setsid: true}
	if run != nil {
		// as the sandbox's host user, with no supplementary groups
		attr.Credential = &syscall.Credential{Uid: uint32(run.user.uid), Gid: uint32(run.user.gid), Groups: []uint32{}}
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.ExtraFiles = []*os.File{readyW, p.syncR, userns, netns}
	cmd.Dir = "/"
	cmd.Env = []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin"}
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = attr
	// like bwrap, never in the controller's session keyring
	start := p.starter
	p.starter = nil
	err = start.start(cmd)
	readyW.Close()
	mnt := p.mnt // set by the starter's thread before it started cmd
	if err != nil {
		if mnt >= 0 {
			unix.Close(mnt)
		}
		return fmt.Errorf("start slirp4netns: %w", err)
	}
	if mnt >= 0 {
		sb.tap.mnt, sb.tap.mntHeld = mnt, true
	}
	st2, _ := startTime(cmd.Process.Pid)
	sb.pid.NetPid, sb.pid.NetStartTime = cmd.Process.Pid, st2
	exited := make(chan struct{})
	sb.netExited = exited
	go func() { cmd.Wait(); close(exited) }()
	if err := writePidFile(sb.ctl, sb.pid); err != nil {
		return fmt.Errorf("start sandbox: %w", err)
	}
	if err := awaitByte(ctx, readyR); err != nil {
		log, _ := readCtl(sb.ctl, natLogName)
		return fmt.Errorf("the sandbox's network did not come up: %w: %s", err, strings.TrimSpace(string(log)))
	}
	tap := holdTap(cmd.Process.Pid, exited)
	sb.tap.fd, sb.tap.held = tap.fd, tap.held
	return nil
}

// holdMountNS opens the calling thread's mount namespace, which the NAT
// helper started from the thread then shares (see privateTun), or returns
// -1. Held, that namespace is no longer the helper's alone: its end does
// not take the namespace's tear-down with it (its mounts' release waits
// out an RCU grace period, some 0.3 to 1 ms), which releaseTap does off
// the path of a stop.
func holdMountNS() int {
	fd, err := unix.Open("/proc/thread-self/ns/mnt", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1
	}
	return fd
}

// holdTap takes a descriptor of the NAT helper's tap device, which the
// helper's own descriptor then no longer is the last of: when the helper
// ends, the device stays, and its removal, for which the kernel waits out
// an RCU barrier (10 to 25 ms here), is left to releaseTap, off the path
// of a stop. The helper ends at once then. None is held when the kernel
// will not give the descriptor (pidfd_getfd came with Linux 5.6 and needs
// ptrace rights over the helper): the helper's end takes that time
// itself. exited closes when the helper, pid, has been waited for.
func holdTap(pid int, exited <-chan struct{}) tapFD {
	pidfd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return tapFD{}
	}
	defer unix.Close(pidfd)
	select {
	case <-exited:
		return tapFD{} // pid may be another process's by now
	default:
	}
	entries, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	for _, e := range entries {
		link, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, e.Name()))
		n, nerr := strconv.Atoi(e.Name())
		if err != nil || nerr != nil || filepath.Base(link) != "tun" {
			continue
		}
		fd, err := unix.PidfdGetfd(pidfd, n, 0)
		if err != nil {
			return tapFD{}
		}
		var st unix.Stat_t
		if unix.Fstat(fd, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFCHR && st.Rdev == unix.Mkdev(10, 200) {
			return tapFD{fd: fd, held: true}
		}
		unix.Close(fd)
	}
	return tapFD{}
}

// tapFD is a descriptor of a NAT helper's tap device (see holdTap), and
// of its mount namespace (see holdMountNS); the zero value holds
// neither. A plain descriptor, never one of Go's poller: the controller
// would wake up for the sandbox's packets.
type tapFD struct {
	fd   int
	held bool
	mnt  int
	// mntHeld says that mnt is a descriptor of the helper's own mount
	// namespace (see holdMountNS)
	mntHeld bool
}

// releaseTap lets go of the tap device and mount namespace held for the
// sandbox (see holdTap, holdMountNS), in the background: they go with
// them, which takes the kernel a while.
func (b *Backend) releaseTap(sb *sandbox) {
	b.mu.Lock()
	tap := sb.tap
	sb.tap = tapFD{}
	b.mu.Unlock()
	if !tap.held && !tap.mntHeld {
		return
	}
	b.tapsClosing.Add(1)
	go func() {
		defer b.tapsClosing.Done()
		if tap.held {
			unix.Close(tap.fd)
		}
		if tap.mntHeld {
			unix.Close(tap.mnt)
		}
	}()
}

// awaitIDMaps waits until the sandbox's user namespace maps its ids.
// bwrap names the sandbox's pid before the sandbox writes its maps; a
// helper that joined the namespace earlier would have no id in it, and so
// no power over the sandbox's network namespace. Once the sandbox's own
// maps are written, those of the namespace that owns its network are too
// (they come first, or are the same).
//
// The sandbox itself says when, never a timer: the first mount it makes
// in its new mount namespace (a tmpfs to build its root in) comes right
// after it writes its maps, and a mount wakes a poll of the namespace's
// mountinfo (POLLPRI). The file is opened before the maps are first
// read, so that mount cannot come unseen; a wake-up from anything else
// (a mount the host propagates) only reads the maps again. The sandbox's
// end wakes its pidfd.
func awaitIDMaps(ctx context.Context, pid int) error {
	mounts, err := unix.Open(fmt.Sprintf("/proc/%d/mountinfo", pid), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("the sandbox ended before it set up its user namespace: %w", err)
	}
	defer unix.Close(mounts)
	fds := []unix.PollFd{{Fd: int32(mounts), Events: unix.POLLPRI}}
	// The mount wakes the wait; the check every wake is only a net, for a
	// bwrap that one day maps its ids after its first mount (a missed wake
	// then costs this, not the start's whole deadline), and, without a
	// pidfd (before Linux 5.3), how an end is seen.
	wake := 50 * time.Millisecond
	if pidfd, err := unix.PidfdOpen(pid, 0); err == nil {
		defer unix.Close(pidfd)
		fds = append(fds, unix.PollFd{Fd: int32(pidfd), Events: unix.POLLIN})
	}
	for {
		if mapped(pid) {
			return nil
		}
		timeout := wake
		if dl, ok := ctx.Deadline(); ok {
			timeout = min(timeout, time.Until(dl))
		}
		if timeout <= 0 || ctx.Err() != nil {
			return fmt.Errorf("the sandbox's user namespace was never set up: %w", context.DeadlineExceeded)
		}
		_, err := unix.Poll(fds, int(min(timeout.Milliseconds()+1, 1<<31-1)))
		if err != nil && err != unix.EINTR {
			return fmt.Errorf("wait for the sandbox's user namespace: %w", err)
		}
		if len(fds) > 1 && fds[1].Revents != 0 && !mapped(pid) {
			return errors.New("the sandbox ended before it set up its user namespace")
		}
	}
}

// mapped reports whether pid's user namespace has its uid and gid maps.
func mapped(pid int) bool {
	u, _ := os.ReadFile(fmt.Sprintf("/proc/%d/uid_map", pid))
	g, _ := os.ReadFile(fmt.Sprintf("/proc/%d/gid_map", pid))
	return len(u) > 0 && len(g) > 0
}

// readInfo reads bwrap's --info-fd JSON; bwrap closes it once written, or
// exits without writing when the sandbox could not be made.
func readInfo(ctx context.Context, r *os.File) (bwrapInfo, error) {
	if dl, ok := ctx.Deadline(); ok {
		r.SetReadDeadline(dl)
	}
	var info bwrapInfo
	if err := json.NewDecoder(r).Decode(&info); err != nil || info.ChildPid <= 0 {
		return bwrapInfo{}, fmt.Errorf("bwrap did not say where the sandbox runs (%v)", err)
	}
	return info, nil
}

// awaitByte waits for slirp4netns's ready byte; EOF means it ended first.
func awaitByte(ctx context.Context, r *os.File) error {
	if dl, ok := ctx.Deadline(); ok {
		r.SetReadDeadline(dl)
	}
	buf := make([]byte, 1)
	n, err := r.Read(buf)
	if n == 1 {
		return nil
	}
	if err == nil {
		err = errors.New("no ready signal")
	}
	return fmt.Errorf("slirp4netns: %w", err)
}

// netAlive reports whether the NAT helper on record still runs: the same
// pid, started at the same time, and slirp4netns.
func (p pidFile) netAlive() bool {
	if p.NetPid <= 0 {
		return false
	}
	st, ok := startTime(p.NetPid)
	if !ok || st != p.NetStartTime {
		return false
	}
	comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", p.NetPid))
	return err == nil && strings.TrimSpace(string(comm)) == "slirp4netns"
}

// killNAT ends the sandbox's NAT helper if it still runs. It ends on its
// own when bwrap does; this is for a stop that cannot wait for that.
func killNAT(sb *sandbox) {
	signalNAT(sb)
	awaitNAT(sb)
}

// signalNAT kills the sandbox's NAT helper if it still runs, and returns
// at once: its end takes the kernel a while (the sandbox's network device
// goes with it, and waits for an RCU grace period to go), which a stop
// spends on its own clean-up meanwhile.
func signalNAT(sb *sandbox) {
	// a helper this process started cannot be another process before it
	// is waited for; an adopted one is checked
	if sb.netExited != nil && sb.pid.NetPid > 0 || sb.pid.netAlive() {
		syscall.Kill(sb.pid.NetPid, syscall.SIGKILL)
	}
}

// awaitNAT waits until the sandbox's NAT helper has ended.
func awaitNAT(sb *sandbox) {
	if sb.netExited != nil {
		select {
		case <-sb.netExited:
		case <-time.After(10 * time.Second):
		}
		return
	}
	for i := 0; i < 500 && sb.pid.netAlive(); i++ {
		time.Sleep(10 * time.Millisecond)
	}
}
