//go:build windows

package wsl

func waitInterrupt() int { return 1 }
