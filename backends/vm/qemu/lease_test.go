//go:build linux

package qemu

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sandboxdesk/backends"
	"sandboxdesk/backends/vm"
)

// TestGuestLeasesItsAddress boots the tiny guest with the network setting
// the vz driver gives it (addresses by DHCP, as vz's NAT leases them) and
// checks, under QEMU whose user-mode network leases too, that the guest's
// init configured the lease: address, default route, DNS, and with
// "on" the gateway (the host) refused.
func TestGuestLeasesItsAddress(t *testing.T) {
	d, err := Find()
	if err != nil {
		t.Skip(err)
	}
	built := filepath.Join(testImages(t), "amd64-tiny")
	images := t.TempDir()
	img := filepath.Join(images, "amd64-tiny")
	if err := os.Mkdir(img, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"vmlinuz", "initrd.gz"} {
		if err := os.Symlink(filepath.Join(built, f), filepath.Join(img, f)); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(filepath.Join(built, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m vm.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	m.Cmdline += " sandboxdesk.dhcp=1"
	data, _ = json.Marshal(m)
	if err := os.WriteFile(filepath.Join(img, "manifest.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := vm.New(vm.Config{Dir: t.TempDir(), Images: images, Driver: d})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	spec := backends.Spec{ID: "lease", Name: "lease-test", Image: backends.Image{Name: "tiny"}, Workspace: t.TempDir(), Network: backends.NetworkOn, MemoryMiB: 512}
	if _, err := b.Start(ctx, spec); err != nil {
		t.Fatal(err)
	}
	defer b.Remove(ctx, "lease")
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"cat", "/run/sandboxdesk.lease"}, []string{"# leased by DHCP: 10.0.2.15", "nameserver 10.0.2.3"}},
		{[]string{"ip", "-4", "addr", "show", "eth0"}, []string{"inet 10.0.2.15/24"}},
		{[]string{"ip", "route"}, []string{"default via 10.0.2.2 dev eth0", "prohibit 10.0.2.2"}},
		{[]string{"cat", "/etc/resolv.conf"}, []string{"nameserver 10.0.2.3"}},
	} {
		code, out := run(t, b, "lease", backends.ExecRequest{Args: tt.args})
		for _, w := range tt.want {
			if code != 0 || !strings.Contains(out, w) {
				t.Errorf("%v: exit %d, %q; want %q in it", tt.args, code, out, w)
			}
		}
	}
}
