package bubblewrap

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"sandboxdesk/backends"
)

// watch waits for a running sandbox's bwrap to end, whoever ends it. An
// end nobody asked for (the sandbox's first process killed, "kill -9 -1"
// inside, bwrap killed from outside or by the OOM killer) frees what the
// sandbox held and tells the controller it is gone, with the reason, so
// it is marked stopped and its slot goes to the next start in the queue.
func (b *Backend) watch(sb *sandbox) {
	<-sb.exited
	b.mu.Lock()
	unasked := b.running[sb.id] == sb && !sb.stopping
	seen := sb.oomsSeen
	if unasked {
		delete(b.running, sb.id)
	}
	b.mu.Unlock()
	if !unasked {
		return // Stop or a failed start cleans up after itself
	}
	sweep(sb.id, sb.pid)
	killNAT(sb) // it ends with bwrap on its own; never later than this
	b.releaseTap(sb)
	reason := sb.reason
	if sb.cg != nil {
		if n := sb.cg.ooms(); n > seen {
			reason = fmt.Sprintf("out of memory: the kernel killed %d process(es) at the %d MiB limit; %s", n-seen, sb.limitMiB, reason)
		}
		sb.cg.remove()
	}
	clearCtl(sb.ctl)
	b.mu.Lock()
	n := b.notify
	b.mu.Unlock()
	if n != nil {
		n(context.Background(), backends.Event{ID: sb.id, Message: "stopped: " + reason, Exited: true, Time: time.Now()})
	}
}

// exitReason says in words how the bwrap this process started ended.
// bwrap passes on its first process's status, a signal as 128+N.
func exitReason(ps *os.ProcessState) string {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	switch {
	case !ok:
		return "bwrap ended"
	case ws.Signaled():
		return "bwrap was killed by " + unix.SignalName(ws.Signal())
	case ws.ExitStatus() > 128 && ws.ExitStatus() < 128+65:
		return "the sandbox's first process was killed by " + unix.SignalName(syscall.Signal(ws.ExitStatus()-128))
	default:
		return fmt.Sprintf("the sandbox's first process exited with status %d", ws.ExitStatus())
	}
}

// awaitAdopted closes sb.exited when the bwrap a previous controller
// started ends. It is not this process's child, so it cannot be waited
// for: a pidfd becomes readable when it exits; on kernels without pidfds
// (before 5.3) it is looked at twice a second.
func awaitAdopted(sb *sandbox) {
	fd, err := unix.PidfdOpen(sb.pid.Pid, 0)
	if err == nil && !sb.pid.alive(sb.id) {
		// the pid was reused between reading the pid file and opening it
		unix.Close(fd)
		sb.reason = "bwrap ended"
		close(sb.exited)
		return
	}
	go func() {
		defer close(sb.exited)
		sb.reason = "bwrap ended (adopted from a previous controller, so its exit status is not known)"
		if err == nil {
			defer unix.Close(fd)
			fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
			for err == nil || errors.Is(err, unix.EINTR) {
				if _, err = unix.Poll(fds, -1); err == nil {
					return
				}
			}
		}
		for sb.pid.alive(sb.id) {
			time.Sleep(500 * time.Millisecond)
		}
	}()
}
