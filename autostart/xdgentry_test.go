package autostart

import (
	"strings"
	"testing"
)

func TestQuoteArg(t *testing.T) {
	for _, tc := range []struct{ name, arg, want string }{
		{"a plain path stays plain", "/usr/bin/sandboxdesk-app", "/usr/bin/sandboxdesk-app"},
		{"a space is quoted", "/home/zoë/My Apps/sandboxdesk-app", `"/home/zoë/My Apps/sandboxdesk-app"`},
		{"quote, backquote, dollar and backslash are escaped", "/opt/a\"b`c$d\\e", "\"/opt/a\\\"b\\`c\\$d\\\\e\""},
		{"a percent is doubled", "/opt/100%/app", "/opt/100%%/app"},
	} {
		if got := quoteArg(tc.arg); got != tc.want {
			t.Errorf("%s: quoteArg(%q) = %s, want %s", tc.name, tc.arg, got, tc.want)
		}
	}
}

func TestXDGEntry(t *testing.T) {
	got, err := xdgEntry("sandboxdesk", `/opt/my apps\x/sandboxdesk-app`)
	if err != nil {
		t.Fatal(err)
	}
	// the string escape doubles the backslash the quoting put there
	for _, line := range []string{"[Desktop Entry]", "Type=Application", "Name=sandboxdesk", `Exec="/opt/my apps\\\\x/sandboxdesk-app"`, `TryExec=/opt/my apps\\x/sandboxdesk-app`, "Terminal=false"} {
		if !strings.Contains(string(got), line+"\n") {
			t.Errorf("no line %s in\n%s", line, got)
		}
	}
	for _, tc := range []struct{ name, entry, exe string }{
		{"a name with a slash", "../evil", "/usr/bin/sandboxdesk-app"},
		{"a relative program", "sandboxdesk", "sandboxdesk-app"},
		{"a program with a newline", "sandboxdesk", "/usr/bin/x\nHidden=true"},
	} {
		if _, err := xdgEntry(tc.entry, tc.exe); err == nil {
			t.Errorf("%s: written", tc.name)
		}
	}
}

func TestXDGEntryOn(t *testing.T) {
	for _, tc := range []struct {
		name  string
		entry string
		on    bool
		bad   bool
	}{
		{name: "ours", entry: "[Desktop Entry]\nType=Application\nExec=/usr/bin/sandboxdesk-app\n", on: true},
		{name: "hidden by the spec's key", entry: "[Desktop Entry]\nExec=x\nHidden=true\n", on: false},
		{name: "turned off in GNOME's Startup Applications", entry: "[Desktop Entry]\nExec=x\nX-GNOME-Autostart-enabled=false\n", on: false},
		{name: "Hidden in another group is not ours to read", entry: "[Desktop Entry]\nExec=x\n[Desktop Action y]\nHidden=true\n", on: true},
		{name: "not a desktop entry", entry: "Exec=x\n", bad: true},
	} {
		on, err := xdgEntryOn([]byte(tc.entry))
		if (err != nil) != tc.bad || on != tc.on {
			t.Errorf("%s: on=%v err=%v, want on=%v bad=%v", tc.name, on, err, tc.on, tc.bad)
		}
	}
}
