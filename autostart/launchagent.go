package autostart

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"sandboxdesk/plist"
)

// launchAgent is the LaunchAgent that starts exe when the user logs in to
// the desktop (Aqua), not for an ssh session, and leaves it alone once it
// runs: the app is quit on purpose, so launchd must not restart it.
func launchAgent(label, exe string) ([]byte, error) {
	if err := checkName(label); err != nil {
		return nil, err
	}
	if !path.IsAbs(exe) {
		return nil, fmt.Errorf("login entry %s: the program %q is not an absolute path", label, exe)
	}
	return plist.Encode(plist.Dict{
		{Key: "Label", Value: label},
		{Key: "ProgramArguments", Value: []string{exe}},
		{Key: "RunAtLoad", Value: true},
		{Key: "KeepAlive", Value: false},
		{Key: "LimitLoadToSessionType", Value: "Aqua"},
		{Key: "ProcessType", Value: "Interactive"},
	})
}

// readLaunchAgent returns the label and the program of a LaunchAgent; the
// file may have been written by anyone, so every field is checked.
func readLaunchAgent(data []byte) (label, exe string, err error) {
	m, err := plist.Decode(data)
	if err != nil {
		return "", "", err
	}
	label, _ = m["Label"].(string)
	args, _ := m["ProgramArguments"].([]any)
	if len(args) > 0 {
		exe, _ = args[0].(string)
	}
	if label == "" || exe == "" {
		return "", "", errors.New("read launch agent: no Label or no ProgramArguments")
	}
	return label, exe, nil
}

// checkName refuses a name that is not one file name: it becomes a file
// in a folder of the user's.
func checkName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) || filepath.Base(name) != name {
		return fmt.Errorf("login entry name %q: not a plain name", name)
	}
	return nil
}
