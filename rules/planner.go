package rules

import "runtime"

// PlatformCheckpoints is whether the sandbox backends of this platform
// are expected to keep checkpoints, for `capacity --checkpoints` planning
// with no controller running to ask: vz does on Apple silicon (from macOS
// 14). A running controller's answer comes from its backends' own
// capabilities instead, and the CLI prefers it.
func PlatformCheckpoints() bool {
	return runtime.GOOS == "darwin" && runtime.GOARCH == "arm64"
}
