package ui

import (
	"errors"
	"reflect"
	"testing"
)

func TestWindowsShell(t *testing.T) {
	args := []string{`C:\Program Files\sandboxdesk\sandboxdesk.exe`, "shell", "dev", "--root", `C:\Users\Zoë Doe\AppData\Local\sandboxdesk`}
	withWT := func(string) (string, error) {
		return `C:\Users\Zoë Doe\AppData\Local\Microsoft\WindowsApps\wt.exe`, nil
	}
	without := func(string) (string, error) { return "", errors.New("not found") }
	tests := []struct {
		name string
		look func(string) (string, error)
		want []string
	}{
		{"Windows Terminal", withWT, append([]string{`C:\Users\Zoë Doe\AppData\Local\Microsoft\WindowsApps\wt.exe`, "new-tab", "--title", "sandboxdesk: dev"}, args...)},
		{"cmd.exe", without, append([]string{"cmd.exe", "/c", "start", "sandboxdesk: dev"}, args...)},
	}
	for _, tt := range tests {
		if got := windowsShell("sandboxdesk: dev", args, tt.look); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}

func TestFolderURL(t *testing.T) {
	tests := []struct{ dir, want string }{
		{`C:\Users\Zoë Doe\AppData\Local\sandboxdesk\workspaces\dev`, "file:///C:/Users/Zo%C3%AB%20Doe/AppData/Local/sandboxdesk/workspaces/dev"},
		{`\\server\share\ws`, "file://server/share/ws"},
		{"/home/zoe/.local/share/sandboxdesk/workspaces/dev", "file:///home/zoe/.local/share/sandboxdesk/workspaces/dev"},
	}
	for _, tt := range tests {
		if got := folderURL(tt.dir).String(); got != tt.want {
			t.Errorf("folderURL(%q) = %s, want %s", tt.dir, got, tt.want)
		}
	}
}
