package daemon

import (
	"log/slog"
	"path/filepath"

	"sandboxdesk/backends/bubblewrap"
	"sandboxdesk/backends/vm"
	"sandboxdesk/backends/vm/qemu"
	"sandboxdesk/controller"
)

func platformBackends(root string) (map[string]controller.Backend, string, error) {
	b, err := bubblewrap.New(bubblewrap.Config{Root: root})
	if err != nil {
		return nil, "", err
	}
	bs := map[string]controller.Backend{bubblewrap.Name: b}
	if v := vmBackend(root); v != nil {
		bs[vm.Name] = v
	}
	return bs, bubblewrap.Name, nil
}

// vmBackend is the VM backend when QEMU is here, even before any guest
// image is (`images pull` brings one); without QEMU the app runs
// bubblewrap alone.
func vmBackend(root string) controller.Backend {
	images := GuestDir()
	if images == "" {
		return nil
	}
	d, err := qemu.Find()
	if err != nil {
		slog.Info("no VM sandboxes", "why", err)
		return nil
	}
	v, err := vm.New(vm.Config{Dir: filepath.Join(root, vm.Name), Images: images, Driver: d})
	if err != nil {
		slog.Warn("no VM sandboxes", "err", err)
		return nil
	}
	return v
}
