//go:build linux

package bubblewrap

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"
)

// probeCommand makes this test binary a small network tool, inside a
// sandbox (it is the sandbox's agent binary too) or in a test network
// namespace, so the network tests need no tool from the image.
const probeCommand = "__sandboxdesk_net_probe"

// probeMain runs one probe and returns its exit status:
//
//	dial tcp|unix ADDR   connect (an abstract socket is "@name"); 0 when it connects
//	serve ADDR           accept TCP connections and close them, forever
//	http ADDR BYTES      serve BYTES bytes at every path, forever
//	sink ADDR            read everything a TCP server at ADDR sends; print the count
//	dns SERVER NAME      ask SERVER (udp, port 53) for NAME; 0 on any DNS reply
func probeMain(args []string) int {
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "probe: missing arguments")
		return 2
	}
	switch args[0] {
	case "dial":
		if len(args) != 3 {
			return 2
		}
		c, err := net.DialTimeout(args[1], args[2], 5*time.Second)
		if err != nil {
			fmt.Println(err)
			return 1
		}
		c.Close()
		fmt.Println("connected")
		return 0
	case "serve":
		l, err := net.Listen("tcp", args[1])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		for {
			if c, err := l.Accept(); err == nil {
				c.Close()
			}
		}
	case "http":
		if len(args) != 3 {
			return 2
		}
		n, _ := strconv.ParseInt(args[2], 10, 64)
		block := make([]byte, 1<<20)
		h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Length", strconv.FormatInt(n, 10))
			for left := n; left > 0; {
				k := min(left, int64(len(block)))
				if _, err := w.Write(block[:k]); err != nil {
					return
				}
				left -= k
			}
		})
		fmt.Fprintln(os.Stderr, http.ListenAndServe(args[1], h))
		return 1
	case "sink":
		c, err := net.DialTimeout("tcp", args[1], 5*time.Second)
		if err != nil {
			fmt.Println(err)
			return 1
		}
		defer c.Close()
		fmt.Fprintf(c, "GET / HTTP/1.0\r\n\r\n")
		n, err := io.Copy(io.Discard, c)
		if err != nil {
			fmt.Println(err)
			return 1
		}
		fmt.Println(n)
		return 0
	case "dns":
		if len(args) != 3 {
			return 2
		}
		reply, err := dnsProbe(args[1], args[2])
		if err != nil {
			fmt.Println(err)
			return 1
		}
		fmt.Println(reply)
		return 0
	}
	fmt.Fprintln(os.Stderr, "probe: unknown", args[0])
	return 2
}

// dnsProbe sends one A query and waits for the matching reply, whatever
// its answer (a name under .invalid gets "no such name" from any resolver
// that works).
func dnsProbe(server, name string) (string, error) {
	c, err := net.Dial("udp", net.JoinHostPort(server, "53"))
	if err != nil {
		return "", err
	}
	defer c.Close()
	q := make([]byte, 12, 64)
	id := make([]byte, 2)
	rand.Read(id)
	copy(q, id)
	q[2] = 1                             // recursion desired
	binary.BigEndian.PutUint16(q[4:], 1) // one question
	for _, label := range splitLabels(name) {
		q = append(q, byte(len(label)))
		q = append(q, label...)
	}
	q = append(q, 0, 0, 1, 0, 1) // type A, class IN
	reply := make([]byte, 512)
	for try := 0; try < 3; try++ {
		c.Write(q)
		c.SetReadDeadline(time.Now().Add(2 * time.Second))
		n, err := c.Read(reply)
		if err != nil {
			continue
		}
		if n >= 12 && reply[0] == id[0] && reply[1] == id[1] && reply[2]&0x80 != 0 {
			return fmt.Sprintf("reply rcode %d", reply[3]&0x0f), nil
		}
	}
	return "", errors.New("no reply")
}

func splitLabels(name string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(name); i++ {
		if i == len(name) || name[i] == '.' {
			if i > start {
				out = append(out, name[start:i])
			}
			start = i + 1
		}
	}
	return out
}
