//go:build !linux && !windows && !darwin

package daemon

import (
	"fmt"
	"runtime"

	"sandboxdesk/controller"
)

// platformBackends: these platforms have no sandbox backend; they run the
// test backend only when asked to with SANDBOXDESK_BACKEND=testvm.
func platformBackends(string) (map[string]controller.Backend, string, error) {
	return nil, "", fmt.Errorf("no sandbox backend for %s (set %s=testvm to try the app)", runtime.GOOS, BackendEnv)
}
