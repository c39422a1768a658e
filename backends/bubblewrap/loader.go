package bubblewrap

import (
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
)

// libDirs are where a Linux host keeps shared libraries, in the loader's
// order of preference.
var libDirs = []string{
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
	"/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
	"/lib64", "/usr/lib64", "/lib", "/usr/lib",
}

// agentLibs finds the dynamic loader of the binary at path and every
// shared library it needs, directly or not, on this host. A static binary
// needs neither. The agent runs inside images that have none of the
// host's libraries (a busybox root file system), so the backend binds
// exactly these files in beside it and starts it through the host's
// loader.
func agentLibs(path string) (interp string, libs []string, err error) {
	f, err := elf.Open(path)
	if err != nil {
		return "", nil, fmt.Errorf("read agent binary: %w", err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			b := make([]byte, p.Filesz)
			if _, err := p.ReadAt(b, 0); err != nil {
				return "", nil, fmt.Errorf("read agent loader: %w", err)
			}
			interp = string(b[:len(b)-1]) // NUL-terminated
		}
	}
	if interp == "" {
		return "", nil, nil
	}
	seen := map[string]bool{}
	var walk func(file *elf.File) error
	walk = func(file *elf.File) error {
		needed, err := file.ImportedLibraries()
		if err != nil {
			return err
		}
		for _, name := range needed {
			if seen[name] {
				continue
			}
			seen[name] = true
			p := findLib(name)
			if p == "" {
				return fmt.Errorf("the agent needs %s, which is not on this host", name)
			}
			libs = append(libs, p)
			lf, err := elf.Open(p)
			if err != nil {
				return err
			}
			err = walk(lf)
			lf.Close()
			if err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(f); err != nil {
		return "", nil, err
	}
	if _, err := os.Stat(interp); err != nil {
		return "", nil, fmt.Errorf("agent loader: %w", err)
	}
	libs = append(libs, interp)
	sort.Strings(libs)
	return interp, slices.Compact(libs), nil
}

func findLib(name string) string {
	for _, d := range libDirs {
		p := filepath.Join(d, name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}
