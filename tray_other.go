//go:build !linux

package main

// hasTray: macOS and Windows always have a tray.
func hasTray() bool { return true }

// keepBusUnlaunched: only Linux desktops find their tray and theme on a
// session bus.
func keepBusUnlaunched(func(string) string, func(string, string) error) {}
