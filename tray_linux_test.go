package main

import (
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/godbus/dbus/v5"
)

func TestKeepBusUnlaunched(t *testing.T) {
	withBus := t.TempDir()
	l, err := net.Listen("unix", filepath.Join(withBus, "bus"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	withFile := t.TempDir()
	os.WriteFile(filepath.Join(withFile, "bus"), nil, 0o600) // not a socket: no bus
	for _, tc := range []struct {
		name, address, runtimeDir, want string
	}{
		{"no bus anywhere", "", t.TempDir(), noBusAddress},
		{"no runtime dir", "", "", noBusAddress},
		{"autolaunch asked for", "autolaunch:", "", noBusAddress},
		{"a file where the bus would be", "", withFile, noBusAddress},
		{"the bus in the runtime dir", "", withBus, ""},
		{"a bus named", "unix:path=/run/user/1000/bus", "", "unix:path=/run/user/1000/bus"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{"DBUS_SESSION_BUS_ADDRESS": tc.address, "XDG_RUNTIME_DIR": tc.runtimeDir}
			keepBusUnlaunched(func(k string) string { return env[k] }, func(k, v string) error { env[k] = v; return nil })
			if got := env["DBUS_SESSION_BUS_ADDRESS"]; got != tc.want {
				t.Errorf("DBUS_SESSION_BUS_ADDRESS = %q, want %q", got, tc.want)
			}
		})
	}
}

// With the address it sets, the D-Bus library Fyne uses fails at once
// instead of launching a bus.
func TestNoBusAddressLaunchesNothing(t *testing.T) {
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", noBusAddress)
	t.Setenv("PATH", t.TempDir()) // a dbus-launch it ran would not be found, and say so
	conn, err := dbus.SessionBusPrivate()
	if err == nil {
		conn.Close()
		t.Fatal("a session bus was dialled at the address that says there is none")
	}
	if hasTray() {
		t.Error("a tray was found without a session bus")
	}
}
