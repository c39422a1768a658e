package guest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"
)

// addRule puts r in the routing policy, replacing the same rule from an
// earlier lease. busybox's ip knows no rule by protocol and port, so the
// rule goes to the kernel over rtnetlink.
func addRule(r Rule) error {
	to := r.To.To4()
	if to == nil {
		return fmt.Errorf("routing rule: %v is no IPv4 address", r.To)
	}
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_ROUTE)
	if err != nil {
		return fmt.Errorf("routing rule: %w", err)
	}
	defer unix.Close(fd)
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return fmt.Errorf("routing rule: %w", err)
	}
	msg := ruleMessage(r, to)
	// a renewal finds its rule there already: none, or the same, is fine
	if err := netlinkDo(fd, unix.RTM_DELRULE, unix.NLM_F_REQUEST|unix.NLM_F_ACK, msg); err != nil && !errors.Is(err, unix.ENOENT) {
		return fmt.Errorf("routing rule %d: remove the old one: %w", r.Pref, err)
	}
	if err := netlinkDo(fd, unix.RTM_NEWRULE, unix.NLM_F_REQUEST|unix.NLM_F_ACK|unix.NLM_F_CREATE|unix.NLM_F_EXCL, msg); err != nil {
		return fmt.Errorf("routing rule %d to %s: %w", r.Pref, to, err)
	}
	return nil
}

// ruleMessage is r as a struct fib_rule_hdr and its attributes.
func ruleMessage(r Rule, to []byte) []byte {
	action, table := uint8(unix.FR_ACT_TO_TBL), uint8(unix.RT_TABLE_MAIN)
	if r.Prohibit {
		action, table = unix.FR_ACT_PROHIBIT, unix.RT_TABLE_UNSPEC
	}
	// family, dst_len, src_len, tos, table, res1, res2, action, flags
	b := []byte{unix.AF_INET, 32, 0, 0, table, 0, 0, action, 0, 0, 0, 0}
	b = attr(b, unix.FRA_DST, to)
	b = attr(b, unix.FRA_PRIORITY, binary.NativeEndian.AppendUint32(nil, r.Pref))
	if !r.Prohibit {
		b = attr(b, unix.FRA_TABLE, binary.NativeEndian.AppendUint32(nil, unix.RT_TABLE_MAIN))
	}
	switch r.Proto {
	case "udp":
		b = attr(b, unix.FRA_IP_PROTO, []byte{unix.IPPROTO_UDP})
	case "tcp":
		b = attr(b, unix.FRA_IP_PROTO, []byte{unix.IPPROTO_TCP})
	}
	if r.Port != 0 {
		// struct fib_rule_port_range, in host order
		ports := binary.NativeEndian.AppendUint16(binary.NativeEndian.AppendUint16(nil, r.Port), r.Port)
		b = attr(b, unix.FRA_DPORT_RANGE, ports)
	}
	return b
}

// attr appends one netlink attribute, padded to 4 bytes.
func attr(b []byte, typ uint16, data []byte) []byte {
	b = binary.NativeEndian.AppendUint16(b, uint16(unix.SizeofRtAttr+len(data)))
	b = binary.NativeEndian.AppendUint16(b, typ)
	b = append(b, data...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

// netlinkDo sends one request and reads the kernel's answer to it.
func netlinkDo(fd int, typ, flags uint16, body []byte) error {
	const seq = 1
	msg := binary.NativeEndian.AppendUint32(nil, uint32(unix.SizeofNlMsghdr+len(body)))
	msg = binary.NativeEndian.AppendUint16(msg, typ)
	msg = binary.NativeEndian.AppendUint16(msg, flags)
	msg = binary.NativeEndian.AppendUint32(msg, seq)
	msg = binary.NativeEndian.AppendUint32(msg, 0)
	msg = append(msg, body...)
	if err := unix.Sendto(fd, msg, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return err
	}
	buf := make([]byte, 8192)
	for {
		n, _, err := unix.Recvfrom(fd, buf, 0)
		if err != nil {
			return err
		}
		msgs, err := syscall.ParseNetlinkMessage(buf[:n])
		if err != nil {
			return err
		}
		for _, m := range msgs {
			if m.Header.Seq != seq || m.Header.Type != unix.NLMSG_ERROR || len(m.Data) < 4 {
				continue
			}
			if code := int32(binary.NativeEndian.Uint32(m.Data)); code != 0 {
				return syscall.Errno(-code)
			}
			return nil
		}
	}
}
