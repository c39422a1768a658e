package main

import "github.com/godbus/dbus/v5"

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
