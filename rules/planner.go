package rules

// PlatformCheckpoints is whether the sandbox backends of this platform
// are expected to keep checkpoints, for `capacity --checkpoints` planning
// with no controller running to ask. None is: vz could only on Apple
// silicon from macOS 14, and the framework refuses to save a machine
// with a directory share, which the workspace is. A running controller's
// answer comes from its backends' own capabilities instead (vz asks the
// framework at start), and the CLI prefers it.
func PlatformCheckpoints() bool { return false }
