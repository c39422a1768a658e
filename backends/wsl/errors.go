package wsl

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// What can be wrong with WSL itself, checked with errors.Is. Each comes
// with a message that names the fix.
var (
	ErrWSLMissing    = errors.New("WSL is not installed: run `wsl.exe --install --no-distribution` as an administrator, then restart Windows")
	ErrWSL1Only      = errors.New("this Windows runs only WSL 1; sandboxes need WSL 2: turn on \"Virtual Machine Platform\" in Windows Features, then run `wsl.exe --update`")
	ErrVirtualOff    = errors.New("WSL 2 cannot start its virtual machine: turn on virtualisation (Intel VT-x or AMD-V) in the firmware settings and \"Virtual Machine Platform\" in Windows Features")
	ErrNoSuchDistro  = errors.New("no such WSL distro")
	errAlreadyExists = errors.New("WSL distro already exists")
	errNoDistros     = errors.New("no WSL distro is installed")
)

// signs are what wsl.exe prints for each failure. The error codes
// (Wsl/..., HCS_E_..., WSL_E_...) are the same in every language; the
// English phrases cover older builds that print no code.
var signs = []struct {
	err   error
	words []string
}{
	{ErrVirtualOff, []string{"HCS_E_HYPERV_NOT_INSTALLED", "HV_E_", "0x80370102", "ensure virtualization is enabled in the BIOS", "virtualization is enabled"}},
	{ErrWSL1Only, []string{"WSL_E_WSL2_NEEDS_KERNEL", "WSL_E_VM_MODE_INVALID_STATE", "0x80370114", "WSL 2 requires an update to its kernel component", "Virtual Machine Platform", "WSL 2 is not supported"}},
	{ErrWSLMissing, []string{"WSL_E_WSL_OPTIONAL_COMPONENT_REQUIRED", "0x8007019e", "Subsystem for Linux is not installed", "Subsystem for Linux has not been enabled", "optional component is not enabled", "Windows-Subsystem für Linux ist nicht installiert"}},
	{ErrNoSuchDistro, []string{"WSL_E_DISTRO_NOT_FOUND", "0x8007018b", "There is no distribution with the supplied name"}},
	{errNoDistros, []string{"WSL_E_DEFAULT_DISTRO_NOT_FOUND", "has no installed distributions", "sind keine Distributionen installiert", "n'a aucune distribution installée", "no tiene distribuciones instaladas"}},
	{errAlreadyExists, []string{"ERROR_ALREADY_EXISTS", "0x800700b7", "A distribution with the supplied name already exists"}},
}

// classify turns a failed wsl.exe run into an error a person can act
// on. It keeps what wsl.exe said; err is what running it returned.
func classify(what string, out []byte, err error) error {
	if err == nil {
		return nil
	}
	text := strings.TrimSpace(decode(out))
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, errNoWSLExe) {
		return fmt.Errorf("%s: %w", what, ErrWSLMissing)
	}
	for _, s := range signs {
		for _, w := range s.words {
			if strings.Contains(strings.ToLower(text), strings.ToLower(w)) {
				return fmt.Errorf("%s: %w (wsl.exe said: %s)", what, s.err, oneLine(text))
			}
		}
	}
	if text == "" {
		return fmt.Errorf("%s: wsl.exe: %w", what, err)
	}
	return fmt.Errorf("%s: wsl.exe: %w: %s", what, err, oneLine(text))
}

var errNoWSLExe = errors.New("wsl.exe not found")

// oneLine squeezes wsl.exe's message, which spans lines, into one.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 400 {
		s = s[:400] + "…"
	}
	return s
}
