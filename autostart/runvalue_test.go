package autostart

import (
	"strings"
	"testing"
)

func TestRunCommand(t *testing.T) {
	const installed = `C:\Users\Zoë\AppData\Local\Programs\sandboxdesk\sandboxdesk-app.exe`
	for _, tc := range []struct{ name, exe, want, err string }{
		{name: "the installed app", exe: installed, want: `"` + installed + `"`},
		{name: "a path with a space", exe: `D:\Program Files\sandboxdesk\sandboxdesk-app.exe`, want: `"D:\Program Files\sandboxdesk\sandboxdesk-app.exe"`},
		{name: "a share", exe: `\\nas\apps\sandboxdesk-app.exe`, want: `"\\nas\apps\sandboxdesk-app.exe"`},
		{name: "a relative path", exe: `sandboxdesk-app.exe`, err: "not an absolute path"},
		{name: "a path relative to a drive", exe: `C:sandboxdesk-app.exe`, err: "not an absolute path"},
		{name: "a path relative to the current drive", exe: `\sandboxdesk\sandboxdesk-app.exe`, err: "not an absolute path"},
		{name: "a quote inside", exe: installed + `" --evil "`, err: "holds a quote"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := runCommand("sandboxdesk", tc.exe)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("runCommand(%q) = %q, %v; want an error saying %q", tc.exe, got, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("runCommand(%q) = %q, %v; want %q", tc.exe, got, err, tc.want)
			}
		})
	}
	if _, err := runCommand(`..\Run`, installed); err == nil {
		t.Error("a value name with a backslash was accepted")
	}
}
