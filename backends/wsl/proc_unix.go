//go:build !windows

package wsl

import (
	"io"
	"os"
	"os/exec"
	"syscall"

	"github.com/creack/pty"

	"sandboxdesk/backends"
)

func hideWindow(*exec.Cmd) {}

func newGroup(*exec.Cmd) {}

func signalProcess(p *os.Process, s syscall.Signal) { p.Signal(s) }

func signalNumber(exit *exec.ExitError) int {
	if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return int(ws.Signal())
	}
	return 0
}

// runTTY runs cmd on a terminal of the asked size: wsl.exe sees a
// terminal and gives the command one inside the distro.
func runTTY(cmd *exec.Cmd, req backends.ExecRequest) (int, error) {
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: req.TTY.Rows, Cols: req.TTY.Cols})
	if err != nil {
		return -1, classify("exec", nil, err)
	}
	defer ptmx.Close()
	if req.Stdin != nil {
		go io.Copy(ptmx, req.Stdin)
	}
	copied := make(chan struct{})
	go func() {
		// a terminal whose last writer exited reads EIO: that is its end
		io.Copy(orDiscard(req.Stdout), ptmx)
		close(copied)
	}()
	stop := forwardSignals(cmd, req.Signals)
	go func() {
		if req.Resizes == nil {
			return
		}
		for s := range req.Resizes {
			pty.Setsize(ptmx, &pty.Winsize{Rows: s.Rows, Cols: s.Cols})
		}
	}()
	err = cmd.Wait()
	stop()
	<-copied
	return exitStatus(err)
}
