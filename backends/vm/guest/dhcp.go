package guest

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
)

// LeaseFile is written once the network has its lease, with the
// resolv.conf the lease gives: the init knows the network is up, and
// writes it where the commands look.
const LeaseFile = "/run/sandboxdesk.lease"

// IsLeaseEvent says whether the init was started by busybox's udhcpc as
// its script (the event in its argument, the lease in its environment).
func IsLeaseEvent(args []string, getenv func(string) string) bool {
	return len(args) == 2 && getenv("interface") != "" && strings.HasPrefix(args[0], "/")
}

// LeaseSteps is what one udhcpc event asks of the network: the commands
// to run and the resolv.conf to write ("" to leave it). Every value comes
// from the DHCP server and is checked to be an address before it reaches
// a command line. With mode "on" the router's own address is refused, as
// the router is the host (vz's NAT gateway).
func LeaseSteps(event, mode string, getenv func(string) string) ([][]string, string, error) {
	dev := getenv("interface")
	if dev == "" || strings.ContainsAny(dev, "/ \t\n") || strings.HasPrefix(dev, "-") || len(dev) > 15 {
		return nil, "", fmt.Errorf("dhcp: bad interface name %q", dev)
	}
	switch event {
	case "deconfig", "leasefail", "nak":
		return [][]string{{"ip", "link", "set", dev, "up"}, {"ip", "addr", "flush", "dev", dev}}, "", nil
	case "bound", "renew":
	default:
		return nil, "", nil // events this network has no use for
	}
	ip := net.ParseIP(getenv("ip")).To4()
	if ip == nil {
		return nil, "", fmt.Errorf("dhcp: the lease has no IPv4 address (%q)", getenv("ip"))
	}
	bits, err := prefixLen(getenv("mask"), getenv("subnet"))
	if err != nil {
		return nil, "", err
	}
	steps := [][]string{
		{"ip", "addr", "flush", "dev", dev},
		{"ip", "addr", "add", ip.String() + "/" + strconv.Itoa(bits), "dev", dev},
	}
	if routers := strings.Fields(getenv("router")); len(routers) > 0 {
		gw := net.ParseIP(routers[0]).To4()
		if gw == nil {
			return nil, "", fmt.Errorf("dhcp: bad router %q", routers[0])
		}
		steps = append(steps, []string{"ip", "route", "replace", "default", "via", gw.String(), "dev", dev})
		if mode == "on" {
			steps = append(steps, []string{"ip", "route", "replace", "prohibit", gw.String() + "/32"})
		}
	}
	var resolv strings.Builder
	for _, d := range strings.Fields(getenv("dns")) {
		if a := net.ParseIP(d); a != nil {
			fmt.Fprintf(&resolv, "nameserver %s\n", a)
		}
	}
	return steps, resolv.String(), nil
}

// prefixLen reads the lease's mask: udhcpc gives the prefix length, and
// older ones only the dotted subnet.
func prefixLen(mask, subnet string) (int, error) {
	if n, err := strconv.Atoi(mask); err == nil && n > 0 && n <= 32 {
		return n, nil
	}
	if ip := net.ParseIP(subnet).To4(); ip != nil {
		if n, bits := net.IPMask(ip).Size(); bits == 32 && n > 0 {
			return n, nil
		}
	}
	return 0, errors.New("dhcp: the lease has no usable subnet mask")
}
