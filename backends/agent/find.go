package agent

import (
	"fmt"
	"os"
	"path/filepath"
)

// BinaryName is the static agent's file name, shipped beside the
// sandboxdesk executables (make build puts it in bin/).
const BinaryName = "sandboxdesk-agent"

// Binary is the agent a backend runs in its sandboxes: the static
// sandboxdesk-agent beside the running executable (links resolved, so a
// link in PATH finds the real folder), else the running executable
// itself, which runs the agent when its first argument is Command (a test
// binary, or a build without the static agent: it then needs the host's
// libraries mounted beside it).
func Binary() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the agent binary: %w", err)
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	beside := filepath.Join(filepath.Dir(exe), BinaryName)
	if fi, err := os.Stat(beside); err == nil && fi.Mode().IsRegular() {
		return beside, nil
	}
	return exe, nil
}
