// Package fakewsl is a stand-in for wsl.exe, for tests: it implements
// the part of wsl.exe's command line the wsl backend uses on top of plain
// folders and host processes. A distro is a folder its tarball is
// unpacked into; a command "in" it is a host process whose /workspace is
// the folder the distro's /etc/fstab mounts there. It prints what
// wsl.exe prints, UTF-16LE included, so the backend's parsing is
// exercised for real. It isolates nothing.
//
// Its state lives under $FAKEWSL_HOME. $FAKEWSL_FAIL makes every
// command fail as a broken WSL does ("missing", "wsl1", "virt-off");
// $FAKEWSL_LANG=de makes it speak German.
package fakewsl

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
)

// Main runs the fake with wsl.exe's arguments and returns its exit code.
func Main(args []string) int {
	f := &fake{home: os.Getenv("FAKEWSL_HOME"), out: os.Stdout, lang: os.Getenv("FAKEWSL_LANG")}
	if f.home == "" {
		fmt.Fprintln(os.Stderr, "fake wsl.exe: FAKEWSL_HOME is not set")
		return 1
	}
	if code, failed := f.failure(); failed {
		return code
	}
	if len(args) == 0 {
		return f.say(1, "fake wsl.exe: no arguments")
	}
	switch args[0] {
	case "--list", "-l":
		return f.list()
	case "--import":
		if len(args) != 6 || args[4] != "--version" || args[5] != "2" {
			return f.say(1, "fake wsl.exe: want --import NAME DIR TAR --version 2")
		}
		return f.importDistro(args[1], args[2], args[3])
	case "--terminate", "-t":
		return f.terminate(args[1:])
	case "--unregister":
		return f.unregister(args[1:])
	case "-d", "--distribution":
		return f.exec(args)
	}
	return f.say(1, "fake wsl.exe: unsupported arguments %q", args)
}

type fake struct {
	home string
	out  io.Writer
	lang string
}

// distro is what the fake keeps of an imported distro.
type distro struct {
	Dir     string `json:"dir"`
	Version int    `json:"version"`
}

// exit codes wsl.exe uses: -1 is what a failed command returns
const exitFailed = -1

// say prints a message as wsl.exe does: UTF-16LE, CRLF line ends.
func (f *fake) say(code int, format string, a ...any) int {
	f.out.Write(utf16le(strings.ReplaceAll(fmt.Sprintf(format, a...), "\n", "\r\n") + "\r\n"))
	return code
}

func (f *fake) failure() (int, bool) {
	switch os.Getenv("FAKEWSL_FAIL") {
	case "missing":
		return f.say(exitFailed, "The Windows Subsystem for Linux is not installed. You can install by running 'wsl.exe --install'.\nFor more information please visit https://aka.ms/wslinstall\nError code: Wsl/WSL_E_WSL_OPTIONAL_COMPONENT_REQUIRED"), true
	case "wsl1":
		return f.say(exitFailed, "WSL 2 requires an update to its kernel component. For information please visit https://aka.ms/wsl2kernel\nError code: Wsl/Service/RegisterDistro/CreateVm/WSL_E_WSL2_NEEDS_KERNEL_UPDATE"), true
	case "virt-off":
		return f.say(exitFailed, "Please enable the Virtual Machine Platform Windows feature and ensure virtualization is enabled in the BIOS.\nError code: Wsl/Service/RegisterDistro/CreateVm/HCS/HCS_E_HYPERV_NOT_INSTALLED"), true
	}
	return 0, false
}

func utf16le(s string) []byte {
	u := utf16.Encode([]rune(s))
	b := make([]byte, 2*len(u))
	for i, c := range u {
		binary.LittleEndian.PutUint16(b[2*i:], c)
	}
	return b
}

func (f *fake) registry(name string) string {
	return filepath.Join(f.home, "distros", name+".json")
}

func (f *fake) load(name string) (*distro, error) {
	data, err := os.ReadFile(f.registry(name))
	if err != nil {
		return nil, err
	}
	var d distro
	return &d, json.Unmarshal(data, &d)
}

func (f *fake) noSuchDistro() int {
	return f.say(exitFailed, "There is no distribution with the supplied name.\nError code: Wsl/Service/WSL_E_DISTRO_NOT_FOUND")
}

func (f *fake) names() []string {
	ents, _ := os.ReadDir(filepath.Join(f.home, "distros"))
	var out []string
	for _, e := range ents {
		if n, ok := strings.CutSuffix(e.Name(), ".json"); ok {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

func (f *fake) list() int {
	names := f.names()
	if len(names) == 0 {
		if f.lang == "de" {
			return f.say(exitFailed, "Für das Windows-Subsystem für Linux sind keine Distributionen installiert.\nError code: Wsl/WSL_E_DEFAULT_DISTRO_NOT_FOUND")
		}
		return f.say(exitFailed, "Windows Subsystem for Linux has no installed distributions.\nError code: Wsl/WSL_E_DEFAULT_DISTRO_NOT_FOUND")
	}
	head, running, stopped := [3]string{"NAME", "STATE", "VERSION"}, "Running", "Stopped"
	if f.lang == "de" {
		head, running, stopped = [3]string{"NAME", "STATUS", "VERSION"}, "Wird ausgeführt", "Beendet"
	}
	width := len(head[0])
	for _, n := range names {
		width = max(width, len(n))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "  %-*s  %-15s %s\n", width, head[0], head[1], head[2])
	for i, n := range names {
		d, err := f.load(n)
		if err != nil {
			continue
		}
		mark, state := " ", stopped
		if i == 0 {
			mark = "*"
		}
		if len(f.live(n)) > 0 {
			state = running
		}
		fmt.Fprintf(&b, "%s %-*s  %-15s %d\n", mark, width, n, state, d.Version)
	}
	f.out.Write(utf16le(strings.ReplaceAll(b.String(), "\n", "\r\n")))
	return 0
}

// live is the pids of the distro's commands still running.
func (f *fake) live(name string) []int {
	ents, _ := os.ReadDir(filepath.Join(f.home, "run", name))
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if alive(pid) {
			out = append(out, pid)
		} else {
			os.Remove(filepath.Join(f.home, "run", name, e.Name()))
		}
	}
	return out
}

func (f *fake) importDistro(name, dir, tarball string) int {
	if _, err := os.Stat(f.registry(name)); err == nil {
		return f.say(exitFailed, "A distribution with the supplied name already exists.\nError code: Wsl/Service/RegisterDistro/ERROR_ALREADY_EXISTS")
	}
	if err := unpack(tarball, filepath.Join(dir, "rootfs")); err != nil {
		return f.say(exitFailed, "%v\nError code: Wsl/Service/RegisterDistro/E_FAIL", err)
	}
	data, _ := json.Marshal(distro{Dir: dir, Version: 2})
	os.MkdirAll(filepath.Join(f.home, "distros"), 0o700)
	if err := os.WriteFile(f.registry(name), data, 0o600); err != nil {
		return f.say(exitFailed, "%v", err)
	}
	return f.say(0, "The operation completed successfully.")
}

func (f *fake) terminate(args []string) int {
	if len(args) != 1 {
		return f.say(1, "fake wsl.exe: want --terminate NAME")
	}
	if _, err := f.load(args[0]); err != nil {
		return f.noSuchDistro()
	}
	for _, pid := range f.live(args[0]) {
		kill(pid, true)
	}
	return f.say(0, "The operation completed successfully.")
}

func (f *fake) unregister(args []string) int {
	if len(args) != 1 {
		return f.say(1, "fake wsl.exe: want --unregister NAME")
	}
	d, err := f.load(args[0])
	if err != nil {
		return f.noSuchDistro()
	}
	for _, pid := range f.live(args[0]) {
		kill(pid, true)
	}
	os.RemoveAll(d.Dir)
	os.RemoveAll(filepath.Join(f.home, "run", args[0]))
	if err := os.Remove(f.registry(args[0])); err != nil && !errors.Is(err, os.ErrNotExist) {
		return f.say(exitFailed, "%v", err)
	}
	return f.say(0, "Unregistering.\nThe operation completed successfully.")
}
