package rules

import "runtime"

// PlatformCheckpoints is whether the sandbox backend of this platform keeps
// checkpoints: only vz does, and only on Apple silicon. It is the default
// of `capacity --checkpoints` when planning without a controller.
func PlatformCheckpoints() bool {
	return runtime.GOOS == "darwin" && runtime.GOARCH == "arm64"
}
