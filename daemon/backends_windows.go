package daemon

import (
	"os"
	"path/filepath"

	"sandboxdesk/backends/wsl"
	"sandboxdesk/controller"
)

// WSLEnv names another wsl.exe than Windows' own (the fake one, to run
// the app where WSL cannot run).
const WSLEnv = "SANDBOXDESK_WSL"

// platformBackends: on Windows each sandbox is a WSL 2 distro, imported
// from a root filesystem tarball in ROOT\wsl-images.
func platformBackends(root string) (map[string]controller.Backend, string, error) {
	exe := os.Getenv(WSLEnv)
	if exe == "" {
		sys := os.Getenv("SystemRoot")
		if sys == "" {
			sys = `C:\Windows`
		}
		exe = filepath.Join(sys, "System32", "wsl.exe")
	}
	b, err := wsl.New(wsl.Config{Root: root, WSL: exe, Images: filepath.Join(root, "wsl-images")})
	if err != nil {
		return nil, "", err
	}
	return map[string]controller.Backend{wsl.Name: b}, wsl.Name, nil
}
