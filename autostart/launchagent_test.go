package autostart

import (
	"strings"
	"testing"

	"sandboxdesk/plist"
)

func TestLaunchAgentReadsBack(t *testing.T) {
	for _, tc := range []struct{ name, label, exe string }{
		{"the bundle's app", "sandboxdesk", "/Applications/sandboxdesk.app/Contents/MacOS/sandboxdesk-app"},
		{"a home with a space and an ampersand", "sandboxdesk", "/Users/Zoë R&D/Applications/sandbox <desk>.app/Contents/MacOS/sandboxdesk-app"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := launchAgent(tc.label, tc.exe)
			if err != nil {
				t.Fatal(err)
			}
			label, exe, err := readLaunchAgent(b)
			if err != nil {
				t.Fatalf("%v\n%s", err, b)
			}
			if label != tc.label || exe != tc.exe {
				t.Errorf("read back label %q exe %q, want %q %q", label, exe, tc.label, tc.exe)
			}
			m, err := plist.Decode(b)
			if err != nil {
				t.Fatal(err)
			}
			// what launchd acts on: started at login, in the desktop
			// session, and not restarted when the user quits the app
			for key, want := range map[string]any{"RunAtLoad": true, "KeepAlive": false, "LimitLoadToSessionType": "Aqua", "ProcessType": "Interactive"} {
				if m[key] != want {
					t.Errorf("%s = %#v, want %#v", key, m[key], want)
				}
			}
			if args := m["ProgramArguments"].([]any); len(args) != 1 {
				t.Errorf("ProgramArguments = %q, want the program alone", args)
			}
		})
	}
}

func TestLaunchAgentRefusesBadEntries(t *testing.T) {
	for _, tc := range []struct{ name, label, exe, want string }{
		{"an empty name", "", "/Applications/x", "not a plain name"},
		{"a name that climbs", "../../.zshrc", "/Applications/x", "not a plain name"},
		{"a name with a folder", "a/b", "/Applications/x", "not a plain name"},
		{"a relative program", "sandboxdesk", "sandboxdesk-app", "not an absolute path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := launchAgent(tc.label, tc.exe); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("launchAgent(%q, %q) = %v, want an error saying %q", tc.label, tc.exe, err, tc.want)
			}
		})
	}
}

func TestHostileLaunchAgentRead(t *testing.T) {
	for _, tc := range []struct{ name, in string }{
		{"no label", `<plist><dict><key>ProgramArguments</key><array><string>/bin/sh</string></array></dict></plist>`},
		{"a label that is a number", `<plist><dict><key>Label</key><integer>1</integer><key>ProgramArguments</key><array><string>/x</string></array></dict></plist>`},
		{"arguments that are a string", `<plist><dict><key>Label</key><string>sandboxdesk</string><key>ProgramArguments</key><string>/x</string></dict></plist>`},
		{"no arguments", `<plist><dict><key>Label</key><string>sandboxdesk</string><key>ProgramArguments</key><array/></dict></plist>`},
		{"binary plist", "bplist00\xd1\x01\x02"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if label, exe, err := readLaunchAgent([]byte(tc.in)); err == nil {
				t.Errorf("read %q as label %q exe %q", tc.in, label, exe)
			}
		})
	}
}
