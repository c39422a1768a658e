//go:build linux

package bubblewrap

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	mathrand "math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"sandboxdesk/backends"
)

// probe is the shell words that run this test binary's network probe
// inside a sandbox, where it is the agent binary.
func (r *rig) probe(args ...string) string {
	cmd := agentDir + "/agent"
	if r.b.interp != "" {
		cmd = agentDir + "/lib/" + filepath.Base(r.b.interp) + " --library-path " + agentDir + "/lib " + cmd
	}
	return cmd + " " + probeCommand + " " + strings.Join(args, " ")
}

func (r *rig) startNet(name string, network backends.Network) backends.Spec {
	r.t.Helper()
	s := r.spec(name)
	s.Network = network
	r.start(s, 256)
	return s
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// TestHostileNetworkHostLoopback: from a sandbox with network "on", a TCP
// server on the host's 127.0.0.1 (also as 10.0.2.2, the NAT's gateway)
// and an abstract unix socket in the host's network namespace (how X and
// D-Bus listen) are out of reach; --network host reaches both, which is
// also what shows the probe can tell.
func TestHostileNetworkHostLoopback(t *testing.T) {
	r := newRig(t)
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer tcp.Close()
	abstract := "@sandboxdesk-test-" + randomHex(6)
	unix, err := net.Listen("unix", abstract)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close()
	for _, l := range []net.Listener{tcp, unix} {
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
	}
	port := strconv.Itoa(tcp.Addr().(*net.TCPAddr).Port)
	targets := []struct{ what, network, addr string }{
		{"the host's 127.0.0.1", "tcp", "127.0.0.1:" + port},
		{"the host's loopback through the NAT gateway", "tcp", "10.0.2.2:" + port},
		{"an abstract socket of the host", "unix", abstract},
	}
	on := r.startNet("on", backends.NetworkOn)
	for _, tt := range targets {
		if code, out := r.sh(on.ID, r.probe("dial", tt.network, tt.addr)); code == 0 {
			t.Errorf("network on reached %s (%s): %q", tt.what, tt.addr, out)
		}
	}
	host := r.startNet("host", backends.NetworkHost)
	for _, tt := range targets {
		if strings.HasPrefix(tt.addr, "10.0.2.2:") {
			continue // no NAT gateway on the host's own network
		}
		if code, out := r.sh(host.ID, r.probe("dial", tt.network, tt.addr)); code != 0 {
			t.Errorf("network host did not reach %s (%s): %d %q", tt.what, tt.addr, code, out)
		}
	}
}

// TestHostileNetworkOtherSandbox: a server on one sandbox's loopback is
// reachable there and nowhere else.
func TestHostileNetworkOtherSandbox(t *testing.T) {
	r := newRig(t)
	a := r.startNet("a", backends.NetworkOn)
	b := r.startNet("b", backends.NetworkOn)
	// a port nothing on the host listens on, so reaching it from the host
	// can only mean reaching sandbox a
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := free.Addr().String()
	free.Close()
	r.sh(a.ID, r.probe("serve", addr)+" >/dev/null 2>&1 &")
	// wait for the server to listen: a readiness check, not a timing one
	wait := "for i in $(seq 200); do " + r.probe("dial", "tcp", addr) + " && exit 0; sleep 0.05; done; exit 1"
	if code, out := r.sh(a.ID, wait); code != 0 {
		t.Fatalf("the server in sandbox a never answered there: %q", out)
	}
	if code, out := r.sh(b.ID, r.probe("dial", "tcp", addr)); code == 0 {
		t.Errorf("sandbox b reached sandbox a's loopback server: %q", out)
	}
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Errorf("the host reached sandbox a's loopback server")
	}
}

// TestHostileNetworkDNS: a sandbox's resolver is the NAT's forwarder, never
// the host's (127.0.0.53 would be the sandbox's own loopback), and it
// answers whenever the host's resolver does.
func TestHostileNetworkDNS(t *testing.T) {
	r := newRig(t)
	s := r.startNet("dns", backends.NetworkOn)
	if code, out := r.sh(s.ID, "cat /etc/resolv.conf"); code != 0 || out != "nameserver 10.0.2.3\n" {
		t.Fatalf("resolv.conf in the sandbox: %d %q", code, out)
	}
	// a name under .invalid never exists: the reply is "no such name",
	// and nothing is looked up anywhere for real
	name := "sandboxdesk-check-" + randomHex(4) + ".invalid"
	host := hostResolver(t)
	if host == "" {
		t.Skip("the host has no resolver in /etc/resolv.conf")
	}
	if _, err := dnsProbe(host, name); err != nil {
		t.Skipf("the host's own resolver %s does not answer, so the sandbox's cannot either", host)
	}
	if code, out := r.sh(s.ID, r.probe("dns", natDNS, name)); code != 0 {
		t.Errorf("the sandbox's resolver %s did not answer while the host's did: %q", natDNS, out)
	}
}

func hostResolver(t *testing.T) string {
	f, err := os.Open("/etc/resolv.conf")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == "nameserver" {
			return f[1]
		}
	}
	return ""
}

// TestHostileNetworkOutbound: a sandbox downloads from a server outside
// the host, here this test's own host: a network namespace on a veth pair.
func TestHostileNetworkOutbound(t *testing.T) {
	r := newRig(t)
	// the root pass makes the test host and hands it to the ordinary
	// user's pass, which could not make one
	url := os.Getenv(testHostEnv)
	if url == "" {
		url = newTestNetHost(t).serveHTTP(t, 8080, 123457)
	}
	s := r.startNet("out", backends.NetworkOn)
	fetch := "wget -q -O /tmp/got " + url + " && wc -c < /tmp/got"
	if _, err := os.Stat("/usr/bin/wget"); err != nil {
		fetch = r.probe("sink", strings.TrimPrefix(url, "http://"))
	}
	if code, out := r.sh(s.ID, fetch); code != 0 || !strings.Contains(out, "123457") {
		t.Errorf("download through the NAT: %d %q, want 123457 bytes", code, out)
	}
	off := r.startNet("off", backends.NetworkOff)
	if code, out := r.sh(off.ID, r.probe("dial", "tcp", strings.TrimPrefix(url, "http://"))); code == 0 {
		t.Errorf("network off reached the test host: %q", out)
	}
}

// testHostEnv hands the URL of the root pass's test host to the ordinary
// user's pass; it serves 123457 bytes.
const testHostEnv = "SANDBOXDESK_TEST_NET_HOST"

// testNetHost is a host of the test's own, reachable from the host's
// network only: a network namespace joined by a veth pair, on a /30 of
// TEST-NET-1 (192.0.2.0/24, which never routes anywhere real).
type testNetHost struct {
	ns, addr string
}

func newTestNetHost(t testing.TB) *testNetHost {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("not root: a test host (ip netns) needs root, so this check runs in the root pass only")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("ip is not installed (apt-get install iproute2)")
	}
	id := randomHex(4)
	ns, vh, vn := "sdtest-"+id, "sdh"+id, "sdn"+id
	block := freeTestNetBlock()
	if block < 0 {
		t.Skip("every /30 of 192.0.2.0/24 is in use here")
	}
	hostIP, nsIP := fmt.Sprintf("192.0.2.%d", block+1), fmt.Sprintf("192.0.2.%d", block+2)
	run := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	run("netns", "add", ns)
	t.Cleanup(func() { exec.Command("ip", "netns", "del", ns).Run() })
	run("link", "add", vh, "type", "veth", "peer", "name", vn, "netns", ns)
	t.Cleanup(func() { exec.Command("ip", "link", "del", vh).Run() })
	run("addr", "add", hostIP+"/30", "dev", vh)
	run("link", "set", vh, "up")
	run("-n", ns, "addr", "add", nsIP+"/30", "dev", vn)
	run("-n", ns, "link", "set", vn, "up")
	run("-n", ns, "link", "set", "lo", "up")
	return &testNetHost{ns: ns, addr: nsIP}
}

// freeTestNetBlock picks a /30 of 192.0.2.0/24 (as its first address's
// last byte) in which no address is the host's, a neighbour's or in a
// route: the host's own network may be in TEST-NET-1 too, and the test
// host must never stand in for a machine on it. -1 when none is free.
func freeTestNetBlock() int {
	used := map[string]bool{}
	for _, args := range [][]string{{"-4", "-o", "addr"}, {"-4", "neigh"}, {"-4", "route"}} {
		out, _ := exec.Command("ip", args...).Output()
		for _, f := range strings.Fields(string(out)) {
			addr, _, _ := strings.Cut(f, "/")
			used[addr] = true
		}
	}
	// in the top half, where a network's gateway and hosts mostly are
	// not, and at random, so two test runs at once rarely pick the same
	var free []int
	for b := 128; b <= 248; b += 4 {
		if !used[fmt.Sprintf("192.0.2.%d", b)] && !used[fmt.Sprintf("192.0.2.%d", b+1)] &&
			!used[fmt.Sprintf("192.0.2.%d", b+2)] && !used[fmt.Sprintf("192.0.2.%d", b+3)] {
			free = append(free, b)
		}
	}
	if len(free) == 0 {
		return -1
	}
	return free[mathrand.IntN(len(free))]
}

// serveHTTP serves size bytes at every path from the test host and returns
// the URL once it answers.
func (h *testNetHost) serveHTTP(t testing.TB, port, size int) string {
	t.Helper()
	addr := net.JoinHostPort(h.addr, strconv.Itoa(port))
	cmd := exec.Command("ip", "netns", "exec", h.ns, os.Args[0], probeCommand, "http", addr, strconv.Itoa(size))
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for i := 0; ; i++ {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return "http://" + addr + "/file"
		}
		if i == 200 {
			t.Fatalf("the test host's server never answered: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestNATLivesAsLongAsTheSandbox: the NAT helper ends with its sandbox,
// whether the sandbox is stopped or its init dies on its own.
func TestNATLivesAsLongAsTheSandbox(t *testing.T) {
	r := newRig(t)
	s := r.startNet("w", backends.NetworkOn)
	p, ok := readPidFile(r.b.ctlDir(s.ID))
	if !ok || !p.netAlive() {
		t.Fatalf("no NAT helper on record for a running sandbox: %+v", p)
	}
	if _, err := r.b.Stop(t.Context(), s.ID, 0); err != nil {
		t.Fatal(err)
	}
	if p.netAlive() {
		t.Errorf("the NAT helper %d outlived stop", p.NetPid)
	}

	r.start(s, 256)
	p, _ = readPidFile(r.b.ctlDir(s.ID))
	for _, child := range children(p.Pid) {
		syscall.Kill(child, syscall.SIGKILL) // the sandbox's init dies
	}
	for i := 0; i < 1000 && p.netAlive(); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if p.netAlive() {
		t.Errorf("the NAT helper %d outlived its sandbox", p.NetPid)
	}
}

// TestNetworkOnWithoutSlirp4netns: without the NAT helper a sandbox with
// network "on" does not start (never on the host's network), and says
// which package to install; "off" still starts.
func TestNetworkOnWithoutSlirp4netns(t *testing.T) {
	r := newRig(t)
	r.b.slirp = ""
	s := r.spec("w")
	if _, err := r.b.Start(t.Context(), withMemory(s, 256)); err == nil || !strings.Contains(err.Error(), "apt-get install slirp4netns") {
		r.b.Remove(t.Context(), s.ID)
		t.Fatalf("start with network on and no slirp4netns: %v", err)
	}
	if _, ok := readPidFile(r.b.ctlDir(s.ID)); ok {
		t.Error("a refused start left a bwrap on record")
	}
	r.startNet("off", backends.NetworkOff)
}

// natsUnder counts the live NAT helpers on record for the sandboxes of root.
func natsUnder(root string) int {
	ids, _ := os.ReadDir(filepath.Join(root, controlFolder))
	n := 0
	for _, id := range ids {
		if p, ok := readPidFile(filepath.Join(root, controlFolder, id.Name())); ok && p.netAlive() {
			n++
		}
	}
	return n
}

// TestHostilePrivateTunStaysPrivate checks the tun node a root backend
// makes for its NAT helper: the helper's user alone may open it, and
// neither the host nor the rest of the controller sees the tmpfs it is
// on.
func TestHostilePrivateTunStaysPrivate(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("not root: only a root backend makes its helper a tun node")
	}
	if _, err := os.Stat("/dev/net"); err != nil {
		t.Skipf("this host has no /dev/net: %v", err)
	}
	cmd := exec.Command("/bin/sh", "-c", "stat -c '%a %u %g %F' /dev/net/tun; grep -c sandboxdesk-tun /proc/self/mountinfo")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := startInOwnKeyring(cmd, func() error { return privateTun(65534, 65534) }); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the helper's view: %v\n%s", err, out.String())
	}
	if got, want := out.String(), "600 65534 65534 character special file\n1\n"; got != want {
		t.Errorf("the helper sees %q, want %q", got, want)
	}
	after, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(after), "sandboxdesk-tun") {
		t.Errorf("the helper's tun mount reached the controller's namespace:\n%s", after)
	}
	host, err := os.ReadFile("/proc/1/mountinfo")
	if err == nil && strings.Contains(string(host), "sandboxdesk-tun") {
		t.Errorf("the helper's tun mount reached the host's namespace")
	}
}

// TestNATDeviceLetGoOf: the tap device the backend holds for a sandbox's
// NAT helper, so that the helper's end does not wait for the device's, is
// let go of when the sandbox stops, and when it ends on its own.
func TestNATDeviceLetGoOf(t *testing.T) {
	r := newRig(t)
	before := tunsHeld()
	s := r.startNet("w", backends.NetworkOn)
	sb, _ := r.b.get(s.ID)
	if !sb.tap.held {
		t.Skip("the kernel gives no descriptor of the helper's tap device here (pidfd_getfd): nothing is held")
	}
	if n := tunsHeld(); n != before+1 {
		t.Fatalf("%d tap devices held while the sandbox runs, want %d", n, before+1)
	}
	if _, err := r.b.Stop(t.Context(), s.ID, 0); err != nil {
		t.Fatal(err)
	}
	r.b.tapsClosing.Wait()
	if n := tunsHeld(); n != before {
		t.Errorf("%d tap devices held after stop, want %d", n, before)
	}

	r.start(s, 256)
	sb, _ = r.b.get(s.ID)
	for _, child := range children(sb.pid.Pid) {
		syscall.Kill(child, syscall.SIGKILL) // the sandbox's init dies
	}
	for i := 0; i < 1000 && !r.said("stopped: "); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	r.b.tapsClosing.Wait()
	if n := tunsHeld(); n != before {
		t.Errorf("%d tap devices held after the sandbox ended on its own, want %d", n, before)
	}
}

// TestNATMountNamespaceLetGoOf: the mount namespace a root backend makes
// for a sandbox's NAT helper (its own /dev/net/tun), held so that the
// helper's end does not wait for the namespace's tear-down, is let go of
// when the sandbox stops.
func TestNATMountNamespaceLetGoOf(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only a root backend gives the NAT helper a mount namespace of its own")
	}
	r := newRig(t)
	before := mountNSHeld()
	s := r.startNet("m", backends.NetworkOn)
	sb, _ := r.b.get(s.ID)
	if !sb.tap.mntHeld {
		t.Fatal("the NAT helper's mount namespace is not held")
	}
	if n := mountNSHeld(); n != before+1 {
		t.Fatalf("%d mount namespaces held while the sandbox runs, want %d", n, before+1)
	}
	if _, err := r.b.Stop(t.Context(), s.ID, 0); err != nil {
		t.Fatal(err)
	}
	r.b.tapsClosing.Wait()
	if n := mountNSHeld(); n != before {
		t.Errorf("%d mount namespaces held after stop, want %d", n, before)
	}
}

// TestStopLetsGoOfMounts: the mount namespaces a stop holds while the
// sandbox's processes end (so that their end does not wait for the
// namespaces' tear-down) are all let go of after it, whatever the network.
func TestStopLetsGoOfMounts(t *testing.T) {
	for _, network := range []backends.Network{backends.NetworkOff, backends.NetworkOn} {
		t.Run(string(network), func(t *testing.T) {
			r := newRig(t)
			before := mountNSHeld()
			s := r.startNet("g", network)
			if _, err := r.b.Stop(t.Context(), s.ID, 0); err != nil {
				t.Fatal(err)
			}
			r.b.tapsClosing.Wait()
			if n := mountNSHeld(); n != before {
				t.Errorf("%d mount namespaces held after stop, want %d", n, before)
			}
		})
	}
}

// mountNSHeld counts this process's descriptors of mount namespaces.
func mountNSHeld() int {
	entries, _ := os.ReadDir("/proc/self/fd")
	n := 0
	for _, e := range entries {
		if link, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && strings.HasPrefix(link, "mnt:[") {
			n++
		}
	}
	return n
}

// tunsHeld counts this process's descriptors of /dev/net/tun.
func tunsHeld() int {
	entries, _ := os.ReadDir("/proc/self/fd")
	n := 0
	for _, e := range entries {
		var st unix.Stat_t
		if unix.Stat("/proc/self/fd/"+e.Name(), &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFCHR && st.Rdev == unix.Mkdev(10, 200) {
			n++
		}
	}
	return n
}

// said reports whether the backend has told the controller something
// that begins with prefix.
func (r *rig) said(prefix string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.events {
		if strings.HasPrefix(e, prefix) {
			return true
		}
	}
	return false
}
