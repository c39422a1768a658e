//go:build linux

// Command broadcast is what a hostile guest user runs to reach the host's
// loopback through QEMU's user network: UDP to the broadcast addresses,
// with SO_BROADCAST set and the socket bound to eth0 (past the routes), and
// the raw sockets that need no SO_BROADCAST.
// Then an ordinary UDP exchange, which must still work. It prints one line
// a step; the test reads them.
package main

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"syscall"
	"time"
)

func main() {
	port, err := strconv.Atoi(os.Args[1])
	if err != nil {
		fmt.Println("usage: broadcast PORT")
		os.Exit(2)
	}
	for _, dst := range [][4]byte{{255, 255, 255, 255}, {10, 0, 2, 255}} {
		fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM, 0)
		if err != nil {
			fmt.Println("socket:", err)
			os.Exit(1)
		}
		ip := net.IP(dst[:])
		fmt.Printf("setsockopt SO_BROADCAST %v: %v\n", ip, syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_BROADCAST, 1))
		on, err := syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_BROADCAST)
		fmt.Printf("SO_BROADCAST reads %d %v: %v\n", on, ip, err)
		fmt.Printf("bind to eth0 %v: %v\n", ip, syscall.BindToDevice(fd, "eth0"))
		err = syscall.Sendto(fd, []byte("from the guest"), 0, &syscall.SockaddrInet4{Port: port, Addr: dst})
		fmt.Printf("sendto %v: %v\n", ip, err)
		syscall.Close(fd)
	}
	// the ways round SO_BROADCAST need CAP_NET_RAW, which the user lacks
	// (in a user namespace of its own too: the network is not its)
	for _, k := range []struct {
		name           string
		family, typ, p int
	}{{"raw", syscall.AF_INET, syscall.SOCK_RAW, syscall.IPPROTO_UDP}, {"packet", syscall.AF_PACKET, syscall.SOCK_RAW, 0x0300}} {
		fd, err := syscall.Socket(k.family, k.typ, k.p)
		if err == nil {
			syscall.Close(fd)
		}
		fmt.Printf("%s socket: %v\n", k.name, err)
	}
	fmt.Println("ordinary udp:", ordinary())
}

// ordinary sends a datagram to a socket on the guest's own eth0 address
// and reads it back.
func ordinary() error {
	eth, err := net.InterfaceByName("eth0")
	if err != nil {
		return err
	}
	addrs, err := eth.Addrs()
	if err != nil || len(addrs) == 0 {
		return fmt.Errorf("eth0 has no address (%v)", err)
	}
	ip := addrs[0].(*net.IPNet).IP
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: ip})
	if err != nil {
		return err
	}
	defer c.Close()
	s, err := net.DialUDP("udp4", nil, c.LocalAddr().(*net.UDPAddr))
	if err != nil {
		return err
	}
	defer s.Close()
	if _, err := s.Write([]byte("ping")); err != nil {
		return err
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 16)
	n, _, err := c.ReadFromUDP(buf)
	if err != nil {
		return err
	}
	if string(buf[:n]) != "ping" {
		return fmt.Errorf("read %q", buf[:n])
	}
	return nil
}
