// Package guest is what runs inside a VM sandbox: a small init (mount the
// kernel's file systems, load the virtio modules, mount the workspace,
// name the host, bring up the network) and the agent of package agent,
// served over the channel to the host. It is built static for the guest
// by `make guest-image` and runs as the initrd's /init.
//
// Settings come from the kernel command line, written by the host:
//
//	sandboxdesk.hostname=NAME   the sandbox's hostname
//	sandboxdesk.net=on|off|host the user-mode network: outbound only, none,
//	                            or with the host's loopback too
//	sandboxdesk.share=TAG       the tag of the workspace's share
//	sandboxdesk.sharefs=9p|virtiofs
//	                            how the share is mounted: 9p under qemu,
//	                            virtio-fs under vz
//	sandboxdesk.port=NAME       the virtio-serial port of the agent
//	sandboxdesk.vsock=PORT      the vsock port the agent listens on
//	                            instead of a virtio-serial port (vz)
//	sandboxdesk.dhcp=1          the network's addresses come from DHCP
//	                            (vz's NAT) rather than QEMU's fixed ones
//	sandboxdesk.root=/dev/vda   the root disk (ext4) to switch to; the
//	                            initrd stays the root without it
//
// Commands run as the guest's user (uid 1000) in /workspace; the agent
// itself runs as root so it can power the machine off. The agent and its
// commands run under a seccomp filter that keeps SO_BROADCAST off (see
// broadcastFilter).
package guest

import (
	"strconv"
	"strings"
)

// Settings are what the host asks of the guest at boot.
type Settings struct {
	Hostname string
	Network  string // "on" (outbound only), "off" or "host"
	Share    string
	ShareFS  string // ShareFS9p or ShareFSVirtio
	Port     string
	// Vsock, when not 0, is the vsock port the agent listens on; the
	// virtio-serial Port is then unused.
	Vsock uint32
	// DHCP: the network's addresses are leased, not QEMU's fixed ones.
	DHCP bool
	Root string // "" or RootDevice
}

// The file systems a workspace share is mounted with.
const (
	ShareFS9p     = "9p"
	ShareFSVirtio = "virtiofs"
)

// DefaultVsockPort is the port the agent listens on under vz.
const DefaultVsockPort uint32 = 6123

// DefaultPort and DefaultShare name the agent's port and the workspace's
// share when the command line does not.
const (
	DefaultPort  = "sandboxdesk.agent"
	DefaultShare = "workspace"
)

// RootDevice is the root disk when an image has one: the first disk on
// virtio-blk, the only one a machine has.
const RootDevice = "/dev/vda"

// UserUID is the guest user commands run as.
const UserUID = 1000

// ParseCmdline reads the settings from a kernel command line.
func ParseCmdline(cmdline string) Settings {
	s := Settings{Hostname: "sandbox", Network: "off", Share: DefaultShare, ShareFS: ShareFS9p, Port: DefaultPort}
	for _, f := range strings.Fields(cmdline) {
		k, v, _ := strings.Cut(f, "=")
		switch k {
		case "sandboxdesk.hostname":
			if ValidHostname(v) {
				s.Hostname = v
			}
		case "sandboxdesk.net":
			if v == "on" || v == "host" {
				s.Network = v
			}
		case "sandboxdesk.share":
			s.Share = v
		case "sandboxdesk.port":
			s.Port = v
		case "sandboxdesk.sharefs":
			if v == ShareFSVirtio {
				s.ShareFS = v
			}
		case "sandboxdesk.vsock":
			// a port the guest cannot listen on leaves the serial port
			if n, err := strconv.ParseUint(v, 10, 32); err == nil && n > 0 && n < 1<<32-1 {
				s.Vsock = uint32(n)
			}
		case "sandboxdesk.dhcp":
			s.DHCP = v == "1"
		case "sandboxdesk.root":
			// only the disk the host attaches, never a path of the image's
			if v == RootDevice {
				s.Root = v
			}
		}
	}
	return s
}

// ValidHostname says whether name can be written on a kernel command line
// and set as a hostname as it is: letters, digits, '-' and '.', at most 63.
func ValidHostname(name string) bool {
	if name == "" || len(name) > 63 {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}
