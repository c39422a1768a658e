package daemon

import (
	"log/slog"
	"path/filepath"

	"sandboxdesk/backends/vm"
	"sandboxdesk/backends/vm/vz"
	"sandboxdesk/controller"
)

// platformBackends: on macOS each sandbox is a Linux VM of
// Virtualization.framework, living in this process. A Mac that cannot run
// them (too old a macOS, no virtualization, a binary without the
// entitlement) gets the one line that says why, checked against the first
// image when there is one, so it shows when the app opens rather than at
// the first start.
func platformBackends(root string) (map[string]controller.Backend, string, error) {
	d, err := vz.New()
	if err != nil {
		return nil, "", err
	}
	images := GuestDir()
	imgs, err := vm.LoadImages(images)
	if err != nil {
		return nil, "", err
	}
	if len(imgs) > 0 {
		if err := d.Check(imgs[0]); err != nil {
			return nil, "", err
		}
	} else {
		slog.Info("no VM image yet: build one with `make guest-image ARCH=arm64` (or amd64 on an Intel Mac)", "folder", images)
	}
	v, err := vm.New(vm.Config{Dir: filepath.Join(root, vm.Name), Images: images, Driver: d})
	if err != nil {
		return nil, "", err
	}
	return map[string]controller.Backend{vm.Name: v}, vm.Name, nil
}
