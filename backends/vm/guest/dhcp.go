package guest

import (
	"errors"
	"fmt"
	"net"
	"slices"
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

// LeasePlan is what one udhcpc event asks of the network: the commands to
// run, the routing rules to add after them, and the resolv.conf to write
// ("" to leave it).
type LeasePlan struct {
	Steps  [][]string
	Rules  []Rule
	Resolv string
}

// Rule is one policy routing rule, by preference: packets to To (one
// address) of protocol Proto ("udp", "tcp"; "" for any) to port Port (0
// for any) are refused when Prohibit, and otherwise go by the main table.
type Rule struct {
	Pref     uint32
	To       net.IP
	Proto    string
	Port     uint16
	Prohibit bool
}

// The preferences of the rules a lease adds: before the main table's
// (32766), in an order where the DNS exceptions come first.
const (
	prefGatewayDNSUDP uint32 = 100 + iota
	prefGatewayDNSTCP
	prefGatewayProhibit
)

// LeaseSteps is what one udhcpc event asks of the network. Every value
// comes from the DHCP server and is checked to be an address before it
// reaches a command line. With mode "on" the router's own address is
// refused, as the router is the host (vz's NAT gateway); when the router
// is also the lease's DNS server (vz's NAT serves DNS on its gateway)
// its port 53 stays open, by rules, or no name would resolve.
func LeaseSteps(event, mode string, getenv func(string) string) (LeasePlan, error) {
	dev := getenv("interface")
	if dev == "" || strings.ContainsAny(dev, "/ \t\n") || strings.HasPrefix(dev, "-") || len(dev) > 15 {
		return LeasePlan{}, fmt.Errorf("dhcp: bad interface name %q", dev)
	}
	switch event {
	case "deconfig", "leasefail", "nak":
		return LeasePlan{Steps: [][]string{{"ip", "link", "set", dev, "up"}, {"ip", "addr", "flush", "dev", dev}}}, nil
	case "bound", "renew":
	default:
		return LeasePlan{}, nil // events this network has no use for
	}
	ip := net.ParseIP(getenv("ip")).To4()
	if ip == nil {
		return LeasePlan{}, fmt.Errorf("dhcp: the lease has no IPv4 address (%q)", getenv("ip"))
	}
	bits, err := prefixLen(getenv("mask"), getenv("subnet"))
	if err != nil {
		return LeasePlan{}, err
	}
	var l LeasePlan
	l.Steps = [][]string{
		{"ip", "addr", "flush", "dev", dev},
		{"ip", "addr", "add", ip.String() + "/" + strconv.Itoa(bits), "dev", dev},
	}
	var dns []net.IP
	var resolv strings.Builder
	for _, d := range strings.Fields(getenv("dns")) {
		if a := net.ParseIP(d); a != nil {
			dns = append(dns, a)
			fmt.Fprintf(&resolv, "nameserver %s\n", a)
		}
	}
	l.Resolv = resolv.String()
	if routers := strings.Fields(getenv("router")); len(routers) > 0 {
		gw := net.ParseIP(routers[0]).To4()
		if gw == nil {
			return LeasePlan{}, fmt.Errorf("dhcp: bad router %q", routers[0])
		}
		route := []string{"ip", "route", "replace", "default", "via", gw.String(), "dev", dev}
		if mode == "on" && slices.ContainsFunc(dns, gw.Equal) {
			// a renewal adds the route again under the rules, which
			// refuse the kernel's check that the gateway is reachable
			route = append(route, "onlink")
		}
		l.Steps = append(l.Steps, route)
		if mode == "on" {
			if slices.ContainsFunc(dns, gw.Equal) {
				l.Rules = []Rule{
					{Pref: prefGatewayDNSUDP, To: gw, Proto: "udp", Port: 53},
					{Pref: prefGatewayDNSTCP, To: gw, Proto: "tcp", Port: 53},
					{Pref: prefGatewayProhibit, To: gw, Prohibit: true},
				}
			} else {
				l.Steps = append(l.Steps, []string{"ip", "route", "replace", "prohibit", gw.String() + "/32"})
			}
		}
	}
	return l, nil
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
