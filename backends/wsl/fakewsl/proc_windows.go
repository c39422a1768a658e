//go:build windows

package fakewsl

import (
	"os"
	"os/exec"
	"time"

	"golang.org/x/sys/windows"
)

// stillActive is what GetExitCodeProcess answers for a live process.
const stillActive = 259

func alive(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	var code uint32
	return windows.GetExitCodeProcess(h, &code) == nil && code == stillActive
}

// kill ends a command of the distro; Windows has no TERM to ask with.
func kill(pid int, _ bool) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}

func relaySignals(*os.Process) func() { return func() {} }

func waitTerm(d time.Duration) { time.Sleep(d) }

func signalOf(*exec.ExitError) int { return 9 }
