//go:build unix

package agent

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
)

// Dispatch runs the agent when a program was started as one (its first
// argument Command): the backends fall back to the controller's own
// program when the static sandboxdesk-agent is not beside it, and tests
// run their own binary. It reports whether it ran, with the exit status.
func Dispatch(args []string) (int, bool) {
	if len(args) > 0 && args[0] == Command {
		return Main(args[1:]), true
	}
	return 0, false
}

// Main runs the agent on the socket in args (a path, or "fd:N" for an
// inherited listening socket) and returns the exit status. It is the
// first process of a sandbox.
func Main(args []string) int {
	if len(args) < 1 || len(args) > 2 {
		fmt.Fprintln(os.Stderr, "usage: sandboxdesk", Command, "SOCKET|fd:N [ready:N]")
		return 2
	}
	ready, err := readyFile(args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "sandboxdesk agent:", err)
		return 2
	}
	s := &Server{ready: ready}
	if fd, ok := strings.CutPrefix(args[0], InheritedPrefix); ok {
		err = s.serveInherited(fd)
	} else {
		s.setUp()
		err = s.ListenAndServe(context.Background(), args[0])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "sandboxdesk agent:", err)
		return 1
	}
	return 0
}

// setUp readies what only a request needs: the commands' environment,
// and the agent's own signals. It runs before the first request is
// served, but may run after the agent has said it is ready.
func (s *Server) setUp() {
	// a polite stop signals every process but the caller, but a stray
	// signal must not end the agent either: it leaves when the sandbox is
	// torn down. Caught, not ignored: an ignored signal would stay ignored
	// in every command the agent starts. No process of the sandbox but
	// its init runs before the agent serves, to send one earlier.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGTERM, syscall.SIGHUP)
	s.Env = commandEnv(startEnv(), isDir)
}

// serveInherited serves on the listening socket at file descriptor fd.
// It says it is ready once it holds the listener, which takes the
// controller's calls from then on: what else it does before it serves
// (setUp, some 0.1 ms) is left off the sandbox's start.
func (s *Server) serveInherited(fd string) error {
	n, err := strconv.Atoi(fd)
	if err != nil || n < 3 {
		return fmt.Errorf("bad inherited socket %q: want a descriptor number above 2", fd)
	}
	f := os.NewFile(uintptr(n), "agent-listener")
	l, err := net.FileListener(f)
	// the listener holds its own close-on-exec copy: no command the agent
	// starts inherits the socket and could accept the controller's calls
	f.Close()
	if err != nil {
		return fmt.Errorf("inherited socket %d: %w", n, err)
	}
	// processes of the sandbox run as the agent's user; without this they
	// could attach to the agent (ptrace, pidfd_getfd) and take its socket
	protectFromPeers()
	s.signalReady()
	s.setUp()
	return s.Serve(l)
}

// readyFile is the descriptor named by an optional "ready:N" argument,
// made close-on-exec at once: no command the agent starts holds it, so
// its end of file means the agent is gone.
func readyFile(args []string) (*os.File, error) {
	if len(args) == 0 {
		return nil, nil
	}
	fd, ok := strings.CutPrefix(args[0], ReadyPrefix)
	n, err := strconv.Atoi(fd)
	if !ok || err != nil || n < 3 {
		return nil, fmt.Errorf("bad readiness descriptor %q: want %sN, N above 2", args[0], ReadyPrefix)
	}
	syscall.CloseOnExec(n)
	return os.NewFile(uintptr(n), "agent-ready"), nil
}

// signalReady tells whoever started the agent that it accepts calls.
func (s *Server) signalReady() {
	if s.ready != nil {
		s.ready.Write([]byte{1})
		s.ready.Close()
		s.ready = nil
	}
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// startEnv is the environment the agent was started with (what the
// backend set), as the kernel kept it: the binary's own initialization may
// have changed the process's copy since (package locale turns a C locale
// into en_US.UTF-8 for Fyne, a locale a sandbox seldom has).
func startEnv() []string {
	raw, err := os.ReadFile("/proc/self/environ")
	if err != nil {
		return os.Environ()
	}
	var env []string
	for _, kv := range bytes.Split(raw, []byte{0}) {
		if len(kv) > 0 {
			env = append(env, string(kv))
		}
	}
	return env
}
