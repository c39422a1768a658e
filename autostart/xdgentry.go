package autostart

import (
	"bufio"
	"bytes"
	"fmt"
	"path"
	"strings"
)

// xdgEntry is the XDG autostart entry that starts exe when the user logs
// in to a desktop session: a desktop entry, as the Desktop Entry
// Specification writes it, in the user's autostart folder.
func xdgEntry(name, exe string) ([]byte, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	if !path.IsAbs(exe) || strings.ContainsAny(exe, "\n\r\x00") {
		return nil, fmt.Errorf("login entry %s: the program %q is not an absolute path", name, exe)
	}
	var b bytes.Buffer
	b.WriteString("[Desktop Entry]\n")
	b.WriteString("Type=Application\n")
	fmt.Fprintf(&b, "Name=%s\n", escapeString(name))
	fmt.Fprintf(&b, "Comment=Opens %s when you log in\n", escapeString(name))
	fmt.Fprintf(&b, "Exec=%s\n", escapeString(quoteArg(exe)))
	// the autostart spec skips an entry whose TryExec is gone: once the
	// package is removed the entry stays in the user's folder (a package
	// does not touch home folders), and without this key each login
	// would try to start a program that is no longer there
	fmt.Fprintf(&b, "TryExec=%s\n", escapeString(exe))
	b.WriteString("Icon=sandboxdesk\n")
	b.WriteString("Terminal=false\n")
	// GNOME's Startup Applications turns an entry off with this key
	// rather than removing it; ours is on while the file is there
	b.WriteString("X-GNOME-Autostart-enabled=true\n")
	return b.Bytes(), nil
}

// quoteArg is one argument of an Exec key: plain when it holds none of
// the reserved characters, else in double quotes with ", `, $ and \
// escaped. A % is doubled either way: alone it would start a field code.
func quoteArg(arg string) string {
	arg = strings.ReplaceAll(arg, "%", "%%")
	if !strings.ContainsAny(arg, " \t\n\"'\\><~|&;$*?#()`") {
		return arg
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range arg {
		if strings.ContainsRune("\"`$\\", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

// escapeString is a value of type string in a desktop entry, where a
// backslash starts an escape of its own (so the Exec key's \\ is \\\\).
func escapeString(s string) string {
	return strings.NewReplacer(`\`, `\\`, "\t", `\t`).Replace(s)
}

// xdgEntryOn tells whether a desktop entry, as anyone may have left it in
// the autostart folder, starts a program at login: the spec's Hidden=true
// and GNOME's X-GNOME-Autostart-enabled=false both mean it does not.
func xdgEntryOn(data []byte) (bool, error) {
	s := bufio.NewScanner(bytes.NewReader(data))
	group, seen := "", false
	on := true
	for s.Scan() {
		line := strings.TrimSpace(s.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "["):
			group = line
			seen = seen || group == "[Desktop Entry]"
		case group == "[Desktop Entry]":
			k, v, _ := strings.Cut(line, "=")
			k, v = strings.TrimSpace(k), strings.TrimSpace(v)
			if (k == "Hidden" && v == "true") || (k == "X-GNOME-Autostart-enabled" && v == "false") {
				on = false
			}
		}
	}
	if err := s.Err(); err != nil {
		return false, fmt.Errorf("read the autostart entry: %w", err)
	}
	if !seen {
		return false, fmt.Errorf("no [Desktop Entry] group")
	}
	return on, nil
}
