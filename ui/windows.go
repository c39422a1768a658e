package ui

import (
	"net/url"
	"strings"
)

// windowsShell is the command line that opens args (a `sandboxdesk
// shell`) in a new terminal titled title on Windows: a Windows Terminal
// tab when wt.exe is there, else a console window of its own through
// cmd.exe's start, whose first quoted argument is the window's title.
func windowsShell(title string, args []string, lookPath func(string) (string, error)) []string {
	if wt, err := lookPath("wt.exe"); err == nil {
		return append([]string{wt, "new-tab", "--title", title}, args...)
	}
	return append([]string{"cmd.exe", "/c", "start", title}, args...)
}

// folderURL is the file URL of a folder for the system's file manager
// (Explorer on Windows): a drive path needs a leading slash to be read as
// one (file:///C:/Users/...), and a UNC path keeps its host.
func folderURL(dir string) *url.URL {
	p := strings.ReplaceAll(dir, `\`, "/")
	if host, rest, ok := strings.Cut(strings.TrimPrefix(p, "//"), "/"); strings.HasPrefix(p, "//") && ok {
		return &url.URL{Scheme: "file", Host: host, Path: "/" + rest}
	}
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return &url.URL{Scheme: "file", Path: p}
}
