package guest

import (
	"reflect"
	"testing"
)

func TestLeaseSteps(t *testing.T) {
	vzLease := map[string]string{"interface": "eth0", "ip": "192.168.64.7", "mask": "24", "subnet": "255.255.255.0",
		"router": "192.168.64.1", "dns": "192.168.64.1"}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for a, b := range vzLease {
			m[a] = b
		}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	tests := []struct {
		name, event, mode string
		env               map[string]string
		want              [][]string
		resolv            string
		wantErr           bool
	}{
		{name: "vz's NAT, outbound only: the host is refused", event: "bound", mode: "on", env: vzLease,
			want: [][]string{
				{"ip", "addr", "flush", "dev", "eth0"},
				{"ip", "addr", "add", "192.168.64.7/24", "dev", "eth0"},
				{"ip", "route", "replace", "default", "via", "192.168.64.1", "dev", "eth0"},
				{"ip", "route", "replace", "prohibit", "192.168.64.1/32"},
			},
			resolv: "nameserver 192.168.64.1\n"},
		{name: "host network: the router stays reachable", event: "renew", mode: "host", env: vzLease,
			want: [][]string{
				{"ip", "addr", "flush", "dev", "eth0"},
				{"ip", "addr", "add", "192.168.64.7/24", "dev", "eth0"},
				{"ip", "route", "replace", "default", "via", "192.168.64.1", "dev", "eth0"},
			},
			resolv: "nameserver 192.168.64.1\n"},
		{name: "only a dotted subnet", event: "bound", mode: "host", env: with("mask", ""),
			want: [][]string{
				{"ip", "addr", "flush", "dev", "eth0"},
				{"ip", "addr", "add", "192.168.64.7/24", "dev", "eth0"},
				{"ip", "route", "replace", "default", "via", "192.168.64.1", "dev", "eth0"},
			},
			resolv: "nameserver 192.168.64.1\n"},
		{name: "lost lease", event: "deconfig", mode: "on", env: vzLease,
			want: [][]string{{"ip", "link", "set", "eth0", "up"}, {"ip", "addr", "flush", "dev", "eth0"}}},
		{name: "a DNS entry that is no address is left out", event: "bound", mode: "host", env: with("dns", "1.1.1.1 ;reboot"),
			want: [][]string{
				{"ip", "addr", "flush", "dev", "eth0"},
				{"ip", "addr", "add", "192.168.64.7/24", "dev", "eth0"},
				{"ip", "route", "replace", "default", "via", "192.168.64.1", "dev", "eth0"},
			},
			resolv: "nameserver 1.1.1.1\n"},
		{name: "an address that is none", event: "bound", mode: "on", env: with("ip", "192.168.64.7; reboot"), wantErr: true},
		{name: "a router that is none", event: "bound", mode: "on", env: with("router", "-f"), wantErr: true},
		{name: "an interface that is an option", event: "bound", mode: "on", env: with("interface", "-all"), wantErr: true},
		{name: "no mask", event: "bound", mode: "on", env: with("mask", "33", "subnet", "255.0.255.0"), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := tt.env
			steps, resolv, err := LeaseSteps(tt.event, tt.mode, func(k string) string { return env[k] })
			if tt.wantErr {
				if err == nil {
					t.Fatalf("no error; steps %q", steps)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(steps, tt.want) {
				t.Errorf("steps\n%q\nwant\n%q", steps, tt.want)
			}
			if resolv != tt.resolv {
				t.Errorf("resolv.conf %q, want %q", resolv, tt.resolv)
			}
		})
	}
}

func TestIsLeaseEvent(t *testing.T) {
	env := func(k string) string { return map[string]string{"interface": "eth0"}[k] }
	none := func(string) string { return "" }
	if !IsLeaseEvent([]string{"/init", "bound"}, env) {
		t.Error("udhcpc's call is not seen")
	}
	if IsLeaseEvent([]string{"/init", "bound"}, none) || IsLeaseEvent([]string{"/init"}, env) {
		t.Error("a call without a lease is taken for one")
	}
}

func TestShareMount(t *testing.T) {
	if fs, opts := shareMount(ShareFSVirtio); fs != "virtiofs" || opts != "" {
		t.Errorf("virtio-fs: %s %q", fs, opts)
	}
	if fs, _ := shareMount(ShareFS9p); fs != "9p" {
		t.Errorf("9p: %s", fs)
	}
}
