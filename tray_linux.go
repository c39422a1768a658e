package main

import (
	"os"
	"path/filepath"

	"github.com/godbus/dbus/v5"
)

// noBusAddress is what DBUS_SESSION_BUS_ADDRESS says when there is no
// session bus: an address no D-Bus library can dial or launch.
const noBusAddress = "disabled:"

// keepBusUnlaunched makes sure nothing in this process starts a session
// bus where there is none. Fyne asks the desktop portal for the theme
// through the session bus, and the D-Bus library autolaunches one when
// none is known (dbus-launch): a fresh bus with no desktop on it, left
// running after the app quits, one more at every start. A bus named in
// the environment, or at $XDG_RUNTIME_DIR/bus, is used as it is.
func keepBusUnlaunched(getenv func(string) string, setenv func(string, string) error) {
	if a := getenv("DBUS_SESSION_BUS_ADDRESS"); a != "" && a != "autolaunch:" {
		return
	}
	if dir := getenv("XDG_RUNTIME_DIR"); dir != "" {
		if fi, err := os.Stat(filepath.Join(dir, "bus")); err == nil && fi.Mode().Type() == os.ModeSocket {
			return
		}
	}
	setenv("DBUS_SESSION_BUS_ADDRESS", noBusAddress)
}

// hasTray reports whether the desktop shows StatusNotifier items: a
// session bus with a watcher that has a host registered. Without one the
// window is the app, and closing it quits.
//
// Without a session bus there is no tray: the bus is never launched here
// (dbus-launch would start a fresh one with no tray host on it, left
// running after the app quits, and cost each start a process spawn).
func hasTray() bool {
	conn, err := dbus.SessionBusPrivateNoAutoStartup()
	if err != nil {
		return false
	}
	defer conn.Close()
	if err := conn.Auth(nil); err != nil {
		return false
	}
	if err := conn.Hello(); err != nil {
		return false
	}
	watcher := conn.Object("org.kde.StatusNotifierWatcher", "/StatusNotifierWatcher")
	v, err := watcher.GetProperty("org.kde.StatusNotifierWatcher.IsStatusNotifierHostRegistered")
	if err != nil {
		return false
	}
	host, ok := v.Value().(bool)
	return ok && host
}
