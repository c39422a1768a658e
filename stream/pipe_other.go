//go:build !linux

package stream

import "os"

// GrowPipe keeps the system's pipe size where it cannot be changed.
func GrowPipe(*os.File) {}
