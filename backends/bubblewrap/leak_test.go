//go:build linux

package bubblewrap

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/sys/unix"
)

func randomText(t *testing.T) string {
	t.Helper()
	raw := make([]byte, 12)
	rand.Read(raw)
	return hex.EncodeToString(raw)
}

// TestHostileControllerEnvironmentStaysOut: nothing of the controller's
// environment is readable inside, not even in bwrap's own (pid 1's).
func TestHostileControllerEnvironmentStaysOut(t *testing.T) {
	secret := randomText(t)
	t.Setenv("SANDBOXDESK_TEST_SECRET", secret)
	r := newRig(t)
	s := r.spec("env")
	r.start(s, 256)
	// every environment visible inside, pid 1's first (the agent's is not
	// readable at all: it keeps its processes out)
	code, out := r.sh(s.ID, `for f in /proc/1/environ /proc/[0-9]*/environ; do echo "== $f"; tr '\0' '\n' < "$f" || echo "(not readable)"; done 2>&1`)
	if code != 0 {
		t.Fatalf("reading the environments inside: %d %q", code, out)
	}
	if strings.Contains(out, secret) {
		t.Errorf("the controller's environment is readable inside:\n%s", out)
	}
	pid1 := strings.SplitN(out, "== /proc/", 3)[1]
	if !strings.Contains(pid1, "PATH=") {
		t.Fatalf("pid 1's environment was not read, so this test shows nothing:\n%s", out)
	}
	for _, kv := range strings.Split(strings.TrimSpace(pid1), "\n")[1:] {
		if !strings.HasPrefix(kv, "PATH=") && !strings.HasPrefix(kv, "LANG=") && kv != "PWD=/" {
			t.Errorf("bwrap started with %q; only PATH, LANG and the shell's PWD=/ belong there", kv)
		}
	}
}

// kernelProbe calls system calls the seccomp filter denies, with
// arguments that make each fail in another way (or succeed) when the
// filter is missing, and prints "name errno" for each.
const kernelProbe = `
import ctypes, os, socket, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def call(name, nr, *args):
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(nr), *[ctypes.c_ulong(a & (2**64 - 1)) for a in args])
    print(name, 0 if r >= 0 else ctypes.get_errno())
n = dict(a.split("=") for a in sys.argv[1:])
null = os.open("/dev/null", os.O_RDONLY)
call("keyctl", int(n["keyctl"]), 0, -3, 0)            # the session keyring's id
call("add_key", int(n["add_key"]), 0, 0, 0, 0, 0)     # EFAULT unfiltered
call("request_key", int(n["request_key"]), 0, 0, 0, 0)
call("io_uring_setup", int(n["io_uring_setup"]), 1, 0)
call("bpf", int(n["bpf"]), 0, 0, 0)
call("perf_event_open", int(n["perf_event_open"]), 0, 0, -1, -1, 0)
call("userfaultfd", int(n["userfaultfd"]), 1)         # UFFD_USER_MODE_ONLY: allowed unfiltered
call("TIOCSTI", int(n["ioctl"]), null, 0x5412, 0)     # ENOTTY unfiltered
call("TIOCSTI-high", int(n["ioctl"]), null, (1 << 32) | 0x5412, 0)
call("TIOCLINUX", int(n["ioctl"]), null, 0x541c, 0)
call("personality", int(n["personality"]), 0x0400000) # READ_IMPLIES_EXEC
call("unshare-user", int(n["unshare"]), 0x10000000)
try:
    socket.socket(38, socket.SOCK_SEQPACKET)           # AF_ALG
    print("AF_ALG", 0)
except OSError as e:
    print("AF_ALG", e.errno)
`

// TestHostileKernelInterfacesDenied: from inside, the kernel interfaces
// the seccomp filter closes fail with EPERM (EAFNOSUPPORT for a socket
// family), user namespaces cannot be made, and every process runs under
// the filter, bwrap's own pid 1 included.
func TestHostileKernelInterfacesDenied(t *testing.T) {
	r := newRig(t)
	s := r.spec("kernel")
	r.start(s, 256)
	if code, _ := r.sh(s.ID, "command -v python3"); code != 0 {
		t.Skip("python3 is not installed in the sandbox's image")
	}
	a, err := arch.GetInfo("")
	if err != nil {
		t.Skipf("no seccomp filter for %s: %v", runtime.GOARCH, err)
	}
	args := []string{"python3", "-c", kernelProbe}
	for _, name := range []string{"keyctl", "add_key", "request_key", "io_uring_setup", "bpf", "perf_event_open", "userfaultfd", "ioctl", "personality", "unshare"} {
		args = append(args, name+"="+strconv.Itoa(a.SyscallNames[name]))
	}
	code, out := r.run(s.ID, args...)
	if code != 0 {
		t.Fatalf("the probe failed: %d\n%s", code, out)
	}
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if name, errno, ok := strings.Cut(line, " "); ok {
			got[name] = errno
		}
	}
	eperm, eafnosupport := strconv.Itoa(int(unix.EPERM)), strconv.Itoa(int(unix.EAFNOSUPPORT))
	for name, want := range map[string]string{
		"keyctl": eperm, "add_key": eperm, "request_key": eperm, "io_uring_setup": eperm, "bpf": eperm,
		"perf_event_open": eperm, "userfaultfd": eperm, "TIOCSTI": eperm, "TIOCSTI-high": eperm, "TIOCLINUX": eperm,
		"personality": eperm, "unshare-user": eperm, "AF_ALG": eafnosupport,
	} {
		if got[name] != want {
			t.Errorf("%s inside: errno %q, want %s", name, got[name], want)
		}
	}
	if code, out := r.sh(s.ID, "unshare -U true"); code == 0 {
		t.Errorf("unshare -U made a user namespace inside: %q", out)
	} else if strings.Contains(out, "not found") {
		t.Logf("unshare is not installed in the sandbox: %q", out)
	}
	_, out = r.sh(s.ID, `for f in /proc/[0-9]*/status; do grep -H '^Seccomp:' "$f"; done`)
	if !strings.Contains(out, "/proc/1/status:Seccomp:\t2") {
		t.Errorf("pid 1 runs without the filter:\n%s", out)
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.HasSuffix(line, "\t2") {
			t.Errorf("a process without the filter: %s", line)
		}
	}
}

// TestHostileFilterLeavesWorkAlone: what a coding agent runs still works
// under the filter: a shell, threads and processes, git, python (with
// sockets and a thread pool), node.
func TestHostileFilterLeavesWorkAlone(t *testing.T) {
	r := newRig(t)
	s := r.spec("work")
	r.start(s, 512)
	tests := []struct{ tool, script, want string }{
		{"sh", "echo $((6*7)) | cat", "42"},
		{"git", "cd /tmp && rm -rf g && git init -q g && cd g && git -c user.email=a@b -c user.name=a commit -q --allow-empty -m one && git log --format=%s", "one"},
		{"python3", `python3 -c 'import concurrent.futures as f, socket, subprocess; a, b = socket.socketpair(); a.send(b"ok"); print(b.recv(2).decode(), list(f.ThreadPoolExecutor(4).map(abs, [-1, -2])), subprocess.run(["true"]).returncode)'`, "ok [1, 2] 0"},
		{"node", `node -e 'require("child_process").execSync("true"); require("http").createServer().listen(0, "127.0.0.1", function () { console.log("listening"); this.close() })'`, "listening"},
	}
	for _, tt := range tests {
		if code, _ := r.sh(s.ID, "command -v "+tt.tool); code != 0 {
			t.Logf("%s is not installed in the sandbox: not tried", tt.tool)
			continue
		}
		if code, out := r.sh(s.ID, tt.script); code != 0 || strings.TrimSpace(out) != tt.want {
			t.Errorf("%s under the filter: %d %q, want %q", tt.tool, code, out, tt.want)
		}
	}
}

// run runs a command in the sandbox and returns its status and output.
func (r *rig) run(id string, args ...string) (int, string) {
	r.t.Helper()
	return r.sh(id, shellQuote(args))
}

func shellQuote(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

// keyReader prints a key's payload, or the errno reading it fails with.
const keyReader = `
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
buf = ctypes.create_string_buffer(256)
r = libc.syscall(ctypes.c_long(int(sys.argv[1])), ctypes.c_ulong(11), ctypes.c_ulong(int(sys.argv[2])), buf, ctypes.c_ulong(256))
print(buf.raw[:r].decode() if r >= 0 else "errno %d" % ctypes.get_errno())
`

const keyEnv = "SANDBOXDESK_TEST_KEY"

// TestHostileControllerKeyringStaysOut: a key in the controller's session
// keyring (where a login session keeps a person's keys) is readable by a
// plain child of the controller, but not by what the backend starts, and
// not from inside a sandbox.
func TestHostileControllerKeyringStaysOut(t *testing.T) {
	newRig(t) // skips where bwrap is missing
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed: it reads keys for this test")
	}
	secret := randomText(t)
	// a controller whose every thread holds a session keyring with the
	// key, as one started from a login session does: a child started from
	// a thread that joined it
	runtime.LockOSThread() // never unlocked: the thread ends with the test
	if _, _, errno := unix.Syscall(unix.SYS_KEYCTL, unix.KEYCTL_JOIN_SESSION_KEYRING, 0, 0); errno != 0 {
		t.Skipf("this host gives no keyrings: %v", errno)
	}
	id, err := unix.AddKey("user", "sandboxdesk-test", []byte(secret), unix.KEY_SPEC_SESSION_KEYRING)
	if err != nil {
		t.Fatalf("add a key to the session keyring: %v", err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestKeyringHolder$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), keyEnv+"="+strconv.Itoa(id)+":"+secret)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the controller holding the key: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "--- PASS: TestKeyringHolder") {
		t.Fatalf("the controller holding the key did not run its checks:\n%s", out)
	}
}

// TestKeyringHolder is the controller of TestHostileControllerKeyringStaysOut.
func TestKeyringHolder(t *testing.T) {
	idSecret := os.Getenv(keyEnv)
	if idSecret == "" {
		t.Skip("run by TestHostileControllerKeyringStaysOut")
	}
	id, secret, _ := strings.Cut(idSecret, ":")
	nr := strconv.Itoa(int(unix.SYS_KEYCTL))
	read := func(start func(*exec.Cmd) error) string {
		py, _ := exec.LookPath("python3")
		cmd := exec.Command(py, "-c", keyReader, nr, id)
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := start(cmd); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		return strings.TrimSpace(out.String())
	}
	if got := read((*exec.Cmd).Start); got != secret {
		t.Fatalf("a plain child does not read the key (%q), so this test shows nothing", got)
	}
	if got := read(func(cmd *exec.Cmd) error { return startInOwnKeyring(cmd, nil) }); got == secret {
		t.Errorf("a process started as bwrap reads the controller's key")
	}
	r := newRig(t)
	s := r.spec("keys")
	r.start(s, 256)
	if code, out := r.run(s.ID, "python3", "-c", keyReader, nr, id); code != 0 || strings.Contains(out, secret) || !strings.Contains(out, fmt.Sprintf("errno %d", unix.EPERM)) {
		t.Errorf("reading the controller's key inside: %d %q, want EPERM", code, out)
	}
	if code, out := r.sh(s.ID, "cat /proc/keys"); strings.Contains(out, "sandboxdesk-test") {
		t.Errorf("/proc/keys inside lists the controller's key: %d %q", code, out)
	}
}

// TestNestedUsernsWhenAsked: a sandbox whose spec asks for nested user
// namespaces (rootless containers, browser sandboxes) may make them.
func TestNestedUsernsWhenAsked(t *testing.T) {
	r := newRig(t)
	s := r.spec("nested")
	s.NestedUserns = true
	r.start(s, 256)
	if code, _ := r.sh(s.ID, "command -v unshare"); code != 0 {
		t.Skip("unshare is not installed in the sandbox's image")
	}
	if code, out := r.sh(s.ID, "unshare -U -r id -u"); code != 0 || strings.TrimSpace(out) != "0" {
		t.Errorf("unshare -U -r with nested user namespaces asked for: %d %q", code, out)
	}
}
