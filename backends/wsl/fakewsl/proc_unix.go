//go:build !windows

package fakewsl

import (
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"
)

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// kill ends a command of the distro: TERM, as `kill -1` and --terminate
// ask it to (a fake command passes it on to its process).
func kill(pid int, _ bool) { syscall.Kill(pid, syscall.SIGTERM) }

// relaySignals passes Ctrl-C and TERM on to the command, as wsl.exe
// passes them into the distro.
func relaySignals(p *os.Process) func() {
	ch := make(chan os.Signal, 4)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-ch:
				p.Signal(s)
			case <-done:
				return
			}
		}
	}()
	return func() { signal.Stop(ch); close(done) }
}

// waitTerm sleeps for d or until asked to end.
func waitTerm(d time.Duration) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	select {
	case <-ch:
	case <-time.After(d):
	}
}

func signalOf(exit *exec.ExitError) int {
	if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return int(ws.Signal())
	}
	return 0
}
