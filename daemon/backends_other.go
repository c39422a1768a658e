//go:build !linux && !windows

package daemon

import (
	"fmt"
	"runtime"

	"sandboxdesk/controller"
)

// platformBackends: the vz (macOS) backend is not built yet; until it
// is, these platforms run the test backend only when asked to with
// SANDBOXDESK_BACKEND=testvm.
func platformBackends(string) (map[string]controller.Backend, string, error) {
	return nil, "", fmt.Errorf("no sandbox backend for %s yet (set %s=testvm to try the app)", runtime.GOOS, BackendEnv)
}
