//go:build windows

package wsl

import (
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"

	"sandboxdesk/backends"
)

// hideWindow keeps wsl.exe from flashing a console window when the
// desktop app, which has none, starts it.
func hideWindow(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.HideWindow = true
}

// newGroup puts wsl.exe in a process group of its own, so Ctrl-C can be
// sent to it alone.
func newGroup(cmd *exec.Cmd) {
	hideWindow(cmd)
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_NEW_PROCESS_GROUP
}

// signalProcess: Windows has no signals; a console control event is how
// wsl.exe hears Ctrl-C, and a group of its own takes only CTRL_BREAK.
// Where no console is shared the command is ended instead.
func signalProcess(p *os.Process, s syscall.Signal) {
	if s == syscall.SIGINT && windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(p.Pid)) == nil {
		return
	}
	p.Kill()
}

func signalNumber(*exec.ExitError) int { return int(syscall.SIGKILL) }

// runTTY: wsl.exe gets a terminal only through a pseudo console, which
// the command line's own console provides when the shell is opened in a
// terminal window; through the socket it runs with pipes.
func runTTY(cmd *exec.Cmd, req backends.ExecRequest) (int, error) {
	req.TTY = nil
	return runPiped(cmd, req)
}
