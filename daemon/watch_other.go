//go:build !linux

package daemon

// guestImageDirs: no backend here keeps images outside the root.
func guestImageDirs() []string { return nil }
