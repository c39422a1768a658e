package guest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"
)

// leaseWait bounds how long the init waits for the first lease before it
// lets the agent answer anyway (the console then says why there is no
// network).
const leaseWait = 20 * time.Second

// lease starts busybox's DHCP client on eth0 with this program as its
// script, and waits for the first lease; it returns the lease's
// resolv.conf. The client stays, renewing the lease, until the machine
// powers off; the init reaps it.
func lease() (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	os.Remove(LeaseFile)
	cmd := exec.Command("/bin/busybox", "udhcpc", "-f", "-S", "-i", "eth0", "-t", "20", "-T", "1", "-A", "3", "-s", self)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("udhcpc: %w", err)
	}
	// never Wait: the init's reaper collects it
	for deadline := time.Now().Add(leaseWait); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if data, err := os.ReadFile(LeaseFile); err == nil {
			return string(data), nil
		}
	}
	return "", errors.New("no DHCP lease yet; the network comes up when one is given")
}

// Lease applies one event of the DHCP client (this program runs as its
// script): addresses, routes, resolv.conf, and the lease file that tells
// the init the network is up.
func Lease(event string, getenv func(string) string) error {
	cmdline, _ := os.ReadFile("/proc/cmdline")
	s := ParseCmdline(string(cmdline))
	steps, resolv, err := LeaseSteps(event, s.Network, getenv)
	if err != nil {
		return err
	}
	for _, step := range steps {
		if err := run(step); err != nil {
			return err
		}
	}
	if event != "bound" && event != "renew" {
		return nil
	}
	// a renewal updates the resolver in place; the first lease is also
	// handed to the init, which writes it where commands will look
	resolv = "# leased by DHCP: " + getenv("ip") + "\n" + resolv
	if err := os.WriteFile("/etc/resolv.conf", []byte(resolv), 0o644); err != nil {
		return err
	}
	return os.WriteFile(LeaseFile, []byte(resolv), 0o644)
}
