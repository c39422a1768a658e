package guest

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestHostileGatewayRules: under vz's NAT with --network on, a sandbox
// reaches the internet and the gateway's DNS, and nothing else of the
// gateway (the Mac). The lease is applied for real, twice (a renewal),
// in a network namespace of its own.
func TestHostileGatewayRules(t *testing.T) {
	const child = "SANDBOXDESK_TEST_NETNS"
	if os.Getenv(child) == "" {
		if os.Geteuid() != 0 {
			t.Skip("a network namespace to route in needs root")
		}
		for _, tool := range []string{"unshare", "ip", "/bin/busybox"} {
			if _, err := exec.LookPath(tool); err != nil {
				t.Skipf("%s is missing: %v", tool, err)
			}
		}
		cmd := exec.Command("unshare", "--net", os.Args[0], "-test.run=^TestHostileGatewayRules$", "-test.v")
		cmd.Env = append(os.Environ(), child+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS") {
			t.Fatalf("in its namespace: %v\n%s", err, out)
		}
		return
	}
	ip := func(args ...string) (string, error) {
		out, err := exec.Command("ip", args...).CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	for _, step := range [][]string{{"link", "set", "lo", "up"}, {"link", "add", "eth0", "type", "veth", "peer", "name", "eth1"}, {"link", "set", "eth1", "up"}, {"link", "set", "eth0", "up"}} {
		if out, err := ip(step...); err != nil {
			t.Fatalf("ip %s: %v: %s", strings.Join(step, " "), err, out)
		}
	}
	lease := map[string]string{"interface": "eth0", "ip": "192.168.64.7", "mask": "24", "router": "192.168.64.1", "dns": "192.168.64.1"}
	for _, event := range []string{"bound", "renew"} {
		plan, err := LeaseSteps(event, "on", func(k string) string { return lease[k] })
		if err != nil {
			t.Fatal(err)
		}
		for _, step := range plan.Steps {
			if err := run(step); err != nil {
				t.Fatalf("%s: %v", event, err)
			}
		}
		for _, r := range plan.Rules {
			if err := addRule(r); err != nil {
				t.Fatalf("%s: %v", event, err)
			}
		}
	}
	tests := []struct {
		name  string
		route []string
		ok    bool
	}{
		{"the internet, through the gateway", []string{"1.1.1.1"}, true},
		{"DNS on the gateway, over UDP", []string{"192.168.64.1", "ipproto", "udp", "dport", "53"}, true},
		{"DNS on the gateway, over TCP", []string{"192.168.64.1", "ipproto", "tcp", "dport", "53"}, true},
		{"the Mac's ssh", []string{"192.168.64.1", "ipproto", "tcp", "dport", "22"}, false},
		{"the Mac's port 53 over another protocol", []string{"192.168.64.1", "ipproto", "icmp"}, false},
		{"the gateway at all", []string{"192.168.64.1"}, false},
	}
	for _, tt := range tests {
		out, err := ip(append([]string{"route", "get"}, tt.route...)...)
		if (err == nil) != tt.ok {
			t.Errorf("%s: ip route get %s: %v: %s", tt.name, strings.Join(tt.route, " "), err, out)
		}
	}
	// a renewal replaced its rules rather than adding them again
	out, _ := ip("rule", "show")
	if n := strings.Count(out, "to 192.168.64.1"); n != 3 {
		t.Errorf("%d rules for the gateway, want 3:\n%s", n, out)
	}
}
