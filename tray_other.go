//go:build !linux

package main

// hasTray: macOS and Windows always have a tray.
func hasTray() bool { return true }
