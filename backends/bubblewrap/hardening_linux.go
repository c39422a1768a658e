package bubblewrap

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"runtime"
	"strconv"

	"golang.org/x/sys/unix"
)

// bwrapEnv is the whole environment bwrap, and the scripts that start it,
// run with. The sandbox's pid 1 is bwrap, and /proc/1/environ shows what
// it was started with even after --clearenv, so nothing of the
// controller's may be in it.
var bwrapEnv = []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin"}

// launchFiles opens what bwrap reads through inherited descriptors (the
// seccomp filter, the CA files) and numbers them in l from first, the
// descriptor the first of them will have in bwrap. The caller passes them
// as cmd.ExtraFiles, in order, after those before first, and closes them
// once bwrap has started.
func launchFiles(l *layout, first int) ([]*os.File, error) {
	prog, err := seccompProgram(l.NestedUserns)
	if err != nil {
		return nil, err
	}
	filter, err := memFile("sandboxdesk-seccomp", prog)
	if err != nil {
		return nil, fmt.Errorf("pass the seccomp filter to bwrap: %w", err)
	}
	files := []*os.File{filter}
	l.SeccompFD = first
	l.CAData = nil
	for _, m := range l.Trust.files {
		f, err := os.Open(m.host)
		if err != nil {
			// gone since it was seen: the variable names nothing now
			continue
		}
		files = append(files, f)
		l.CAData = append(l.CAData, dataMount{fd: first + len(files) - 1, inside: m.inside})
	}
	return files, nil
}

// memFile is an anonymous in-memory file holding data, read from its start.
func memFile(name string, data []byte) (*os.File, error) {
	fd, err := unix.MemfdCreate(name, unix.MFD_CLOEXEC)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), name)
	if _, err := f.Write(data); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.Seek(0, 0); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func closeAll(files []*os.File) {
	for _, f := range files {
		f.Close()
	}
}

// startInOwnKeyring starts cmd with a new, empty session keyring instead
// of the controller's. A process holding a session keyring may read every
// key in it (the keyring's possessor rights), whatever its user; the
// controller's may hold a person's login keys. The new keyring is joined
// by one OS thread, which starts cmd (a child takes its thread's
// credentials) and then ends with its goroutine, so the rest of the
// controller keeps its own. prepare, when not nil, runs on that thread
// before cmd starts, to change what the thread, and so cmd, sees (its
// mount namespace, say) without the rest of the controller seeing it.
func startInOwnKeyring(cmd *exec.Cmd, prepare func() error) error {
	return newStarter(prepare, nil).start(cmd)
}

// A starter is the thread of startInOwnKeyring made ahead of its command:
// it joins its keyring and runs prepare at once, then waits, so that
// their cost is off the path of the start. It starts one command, or is
// discarded; discarded, when not nil, then runs on its thread (to let go
// of what prepare took).
type starter struct {
	cmds chan *exec.Cmd
	errc chan error
}

func newStarter(prepare func() error, discarded func()) *starter {
	s := &starter{cmds: make(chan *exec.Cmd), errc: make(chan error, 1)}
	onThrowawayThread(func() {
		err := joinOwnKeyring()
		if err == nil && prepare != nil {
			err = prepare()
		}
		cmd, ok := <-s.cmds
		if !ok {
			if discarded != nil {
				discarded()
			}
			return
		}
		if err != nil {
			s.errc <- err
			return
		}
		closeOnExec()
		s.errc <- cmd.Start()
	})
	return s
}

// start starts cmd from the starter's thread.
func (s *starter) start(cmd *exec.Cmd) error {
	s.cmds <- cmd
	return <-s.errc
}

// discard ends a starter that will start nothing.
func (s *starter) discard() { close(s.cmds) }

// joinOwnKeyring gives the calling thread a new, anonymous session
// keyring.
func joinOwnKeyring() error {
	// a NULL name: a new anonymous keyring, never one found by name
	_, _, errno := unix.Syscall(unix.SYS_KEYCTL, unix.KEYCTL_JOIN_SESSION_KEYRING, 0, 0)
	switch errno {
	case 0, unix.ENOSYS, unix.EPERM:
		// ENOSYS, EPERM: a filter denies the controller the keyrings (a
		// container's seccomp profile): it denies them to its children too
		return nil
	default:
		return fmt.Errorf("give the sandbox a keyring of its own (the kernel's key quota, kernel.keys.maxkeys, may be full): %w", errno)
	}
}

// onThrowawayThread runs f in a goroutine locked to an OS thread that
// ends with it, so what f changes of its thread (a keyring, a mount
// namespace) stays with that thread. Never the process's main thread:
// Go does not end that one but parks it, and /proc/self shows the main
// thread's mounts, so a change there would outlive f and show.
func onThrowawayThread(f func()) {
	go func() {
		runtime.LockOSThread() // unlocked only if main: the thread ends with the goroutine
		if unix.Gettid() != unix.Getpid() {
			f()
			return
		}
		// hold the main thread while another runs f: no goroutine but
		// this one runs on it until it is unlocked, unchanged
		done := make(chan struct{})
		go func() {
			defer close(done)
			runtime.LockOSThread()
			f()
		}()
		<-done
		runtime.UnlockOSThread()
	}()
}

// closeOnExec marks every descriptor of the controller but stdin, stdout
// and stderr close-on-exec, so that a child gets only what its command
// hands down (ExtraFiles). Go opens its own so; one the controller
// inherited from whatever started it (a terminal, a CI runner's pipe)
// or one C code opened is not, and would otherwise pass through bwrap
// and the agent to every command, reading and writing what it names on
// the host.
func closeOnExec() {
	if unix.CloseRange(3, math.MaxUint32, unix.CLOSE_RANGE_CLOEXEC) == nil {
		return
	}
	// before Linux 5.11: one by one
	entries, _ := os.ReadDir("/proc/self/fd")
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC)
		}
	}
}
