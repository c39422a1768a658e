//go:build linux

package bubblewrap

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"sandboxdesk/backends"
	"sandboxdesk/backends/agent"
)

// TestMain makes this test binary the agent inside the sandboxes it
// starts.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == agent.Command {
		os.Exit(agent.Main(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == probeCommand {
		os.Exit(probeMain(os.Args[2:]))
	}
	if root := os.Getenv(childRootEnv); root != "" {
		os.Exit(runChildController(root))
	}
	if root := os.Getenv(createsRootEnv); root != "" {
		os.Exit(runConcurrentCreates(root))
	}
	if root := os.Getenv(childImportEnv); root != "" {
		os.Exit(runChildImport(root))
	}
	os.Exit(m.Run())
}

type rig struct {
	t      *testing.T
	b      *Backend
	root   string
	mu     sync.Mutex
	events []string
}

func newRig(t *testing.T) *rig {
	t.Helper()
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bubblewrap is not installed (apt-get install bubblewrap)")
	}
	root := t.TempDir()
	b, err := New(Config{Root: root, Agent: os.Args[0]})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Check(t.Context()); err != nil {
		t.Fatal(err)
	}
	r := &rig{t: t, b: b, root: root}
	b.SetNotify(func(_ context.Context, e backends.Event) {
		r.mu.Lock()
		r.events = append(r.events, e.Message)
		r.mu.Unlock()
	})
	return r
}

// spec lays out a sandbox as the controller would.
func (r *rig) spec(name string) backends.Spec {
	r.t.Helper()
	raw := make([]byte, 8)
	rand.Read(raw)
	id := "sb-" + hex.EncodeToString(raw)
	s := backends.Spec{
		ID: id, Name: name, Root: r.root, Image: backends.Image{Name: HostImage}, Network: backends.NetworkOn,
		Workspace: filepath.Join(r.root, "workspaces", name), StateDir: filepath.Join(r.root, "sandboxes", id),
	}
	for _, d := range []string{s.Workspace, s.StateDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			r.t.Fatal(err)
		}
	}
	return s
}

func (r *rig) start(s backends.Spec, memMiB int64) backends.Started {
	r.t.Helper()
	if s.MemoryMiB == 0 {
		s.MemoryMiB = memMiB // what the controller would have decided
	}
	got, err := r.b.Start(r.t.Context(), s)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { r.b.Remove(context.Background(), s.ID) })
	return got
}

// sh runs a shell command in the sandbox and returns its status and output.
func (r *rig) sh(id, script string) (int, string) {
	r.t.Helper()
	var out bytes.Buffer
	code, err := r.b.Exec(r.t.Context(), id, backends.ExecRequest{Args: []string{"sh", "-c", script}, Stdout: &out, Stderr: &out})
	if err != nil {
		r.t.Fatalf("exec %q: %v", script, err)
	}
	return code, out.String()
}

func TestBackgroundProcessLivesUntilStop(t *testing.T) {
	r := newRig(t)
	s := r.spec("w")
	r.start(s, 512)
	if code, out := r.sh(s.ID, "sleep 300 & echo started"); code != 0 || out != "started\n" {
		t.Fatalf("background start: %d %q", code, out)
	}
	if code, out := r.sh(s.ID, "pgrep -x sleep"); code != 0 {
		t.Fatalf("the background sleep is gone before stop: %d %q", code, out)
	}
	r.sh(s.ID, "echo kept > /workspace/in-workspace; mkdir -p ~/.local/bin; echo kept > ~/.local/bin/tool")
	if _, err := r.b.Stop(t.Context(), s.ID, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := r.b.Exec(t.Context(), s.ID, backends.ExecRequest{Args: []string{"true"}}); err != backends.ErrNotRunning {
		t.Fatalf("exec in a stopped sandbox: %v", err)
	}
	r.start(s, 512)
	if code, _ := r.sh(s.ID, "pgrep -x sleep"); code != 1 {
		t.Error("the background sleep survived stop and start")
	}
	if code, out := r.sh(s.ID, "cat /workspace/in-workspace ~/.local/bin/tool"); code != 0 || out != "kept\nkept\n" {
		t.Errorf("files after stop and start: %d %q", code, out)
	}
}

func TestSandboxIdentity(t *testing.T) {
	r := newRig(t)
	s := r.spec("agent-7")
	r.start(s, 512)
	tests := []struct{ script, want string }{
		{"hostname", "agent-7"},
		{"id -un; id -u", "sandbox\n1000"},
		{"pwd", "/workspace"},
		{"echo $HOME", "/home/sandbox"},
		{"grep CapEff /proc/self/status", "CapEff:\t0000000000000000"},
		{"ls /proc | grep -c '^[0-9]'", ""}, // checked below
	}
	for _, tt := range tests[:5] {
		code, out := r.sh(s.ID, tt.script)
		if code != 0 || strings.TrimSpace(out) != tt.want {
			t.Errorf("%s: %d %q, want %q", tt.script, code, out, tt.want)
		}
	}
	// its own pid namespace: bwrap's init, the agent, this shell and ls
	_, out := r.sh(s.ID, "ls /proc | grep -c '^[0-9]'")
	if n, _ := strconv.Atoi(strings.TrimSpace(out)); n > 6 {
		t.Errorf("the sandbox sees %d processes", n)
	}
}

func TestNetworkOff(t *testing.T) {
	r := newRig(t)
	on := r.spec("on")
	r.start(on, 256)
	off := r.spec("off")
	off.Network = backends.NetworkOff
	r.start(off, 256)
	_, onDevs := r.sh(on.ID, "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | sort | tr '\\n' ' '")
	_, offDevs := r.sh(off.ID, "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | sort | tr '\\n' ' '")
	if strings.TrimSpace(offDevs) != "lo" {
		t.Errorf("network off sees %q, want only lo", offDevs)
	}
	if strings.TrimSpace(onDevs) == "lo" {
		t.Errorf("network on sees only %q", onDevs)
	}
}

func TestEscapes(t *testing.T) {
	r := newRig(t)
	s := r.spec("jail")
	r.start(s, 256)
	hostHome := t.TempDir()
	secret := filepath.Join(hostHome, "secret.txt")
	os.WriteFile(secret, []byte("host secret"), 0o644)
	var rootSecret string
	if os.Geteuid() == 0 {
		rootSecret = filepath.Join("/root", "sandboxdesk-escape-test-"+filepath.Base(hostHome))
		os.WriteFile(rootSecret, []byte("root secret"), 0o600)
		defer os.Remove(rootSecret)
	}
	me := strconv.Itoa(os.Getpid())
	tests := []struct {
		what, script string
	}{
		{"read a host home file", "cat " + secret},
		{"list /home", "ls /home | grep -v sandbox | grep ."},
		{"write /etc", "touch /etc/escaped"},
		{"write the host's /usr", "touch /usr/escaped"},
		{"see a host process", "test -e /proc/" + me},
		{"signal a host process", "kill -0 " + me},
		{"reach the controller's database", "ls " + r.root},
		{"reach the controller's socket folder", "test -e " + filepath.Join(r.root, "control.sock") + " || test -e " + r.root},
		{"read the host's /etc/shadow", "cat /etc/shadow"},
		{"become root", "su -c true root </dev/null"},
	}
	if rootSecret != "" {
		tests = append(tests, struct{ what, script string }{"read a file in the host's /root", "cat " + rootSecret})
	}
	for _, tt := range tests {
		if code, out := r.sh(s.ID, tt.script); code == 0 {
			t.Errorf("the sandbox could %s: %q", tt.what, out)
		}
	}
	if _, err := os.Stat("/etc/escaped"); err == nil {
		t.Error("/etc/escaped exists on the host")
		os.Remove("/etc/escaped")
	}
}

func TestMemoryLimitKills(t *testing.T) {
	r := newRig(t)
	s := r.spec("hog")
	got := r.start(s, 256)
	if got.MemoryLimitMiB == 0 {
		t.Skipf("this host gives the backend no cgroup with a memory controller, so the limit is not enforced (events: %v)", r.events)
	}
	if got.MemoryLimitMiB != 256 {
		t.Fatalf("limit %d MiB, want 256", got.MemoryLimitMiB)
	}
	// the shell keeps a command's whole output in memory: 600 MiB
	code, out := r.sh(s.ID, `x=$(head -c 629145600 /dev/zero | tr '\0' a); echo ${#x}`)
	if code == 0 {
		t.Fatalf("600 MiB under a 256 MiB limit succeeded: %q", out)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.events) == 0 || !strings.Contains(r.events[len(r.events)-1], "out of memory") {
		t.Errorf("events %v, want an out-of-memory report", r.events)
	}
}

func TestObserveAndAdopt(t *testing.T) {
	r := newRig(t)
	s := r.spec("w")
	started := r.start(s, 256)
	r.sh(s.ID, "sleep 300 &")
	// a new backend over the same root, as after a controller restart
	b2, err := New(Config{Root: r.root, Agent: os.Args[0]})
	if err != nil {
		t.Fatal(err)
	}
	obs, err := b2.Observe(t.Context())
	if err != nil || len(obs) != 1 || obs[0].ID != s.ID || !obs[0].Running {
		t.Fatalf("observe after restart: %+v, %v", obs, err)
	}
	if obs[0].MemoryLimitMiB != started.MemoryLimitMiB {
		t.Errorf("an adopted sandbox holds a %d MiB limit, observed %d", started.MemoryLimitMiB, obs[0].MemoryLimitMiB)
	}
	var out bytes.Buffer
	if code, err := b2.Exec(t.Context(), s.ID, backends.ExecRequest{Args: []string{"pgrep", "-x", "sleep"}, Stdout: &out}); err != nil || code != 0 {
		t.Errorf("exec through the adopting backend: %d, %v", code, err)
	}
	if _, err := b2.Stop(t.Context(), s.ID, 0); err != nil {
		t.Fatal(err)
	}
	obs, _ = b2.Observe(t.Context())
	for _, o := range obs {
		if o.Running {
			t.Errorf("still running after stop: %+v", o)
		}
	}
	if n := bwrapsUnder(r.root); n != 0 {
		t.Errorf("%d bwrap processes of this root left", n)
	}
}

// bwrapsUnder counts live bwrap processes of the sandboxes of root: those
// whose command line names one of the root's sandbox folders.
func bwrapsUnder(root string) int {
	ids, _ := os.ReadDir(filepath.Join(root, "sandboxes"))
	entries, _ := os.ReadDir("/proc")
	n := 0
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmd, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if _, alive := startTime(pid); !alive || !bytes.HasPrefix(cmd, []byte("bwrap")) && !bytes.Contains(cmd, []byte("/bwrap\x00")) {
			continue
		}
		for _, id := range ids {
			if bytes.Contains(cmd, []byte("/sandboxes/"+id.Name()+"/")) {
				n++
				break
			}
		}
	}
	return n
}

// TestSuiteAsUnprivilegedUser runs this package's tests again as an
// ordinary user (nobody) when the suite runs as root, so both ways of
// starting bwrap are tested on every run. Every test named TestHostile...
// (an escape or hardening check) is among them.
func TestSuiteAsUnprivilegedUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("not root: this run already is the unprivileged one")
	}
	if os.Getenv("SANDBOXDESK_TEST_UNPRIVILEGED") != "" {
		t.Skip("already the nested run")
	}
	newRig(t) // skips where bwrap is missing
	dir, err := os.MkdirTemp("", "sdbwrap")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	bin := filepath.Join(dir, "bubblewrap.test")
	data, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	run := []string{bin, "-test.run=^Test(BackgroundProcess|SandboxIdentity|NetworkOff|Escapes|MemoryLimit|ObserveAndAdopt|Imported|DeadSandbox|KilledDuringCreates|AliveThroughExec|Hostile|NAT|StopAsksPolitely)", "-test.v", "-test.count=1"}
	cmd := exec.CommandContext(t.Context(), run[0], run[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}}
	var prepare func() error
	if !tunUsableByOthers() {
		// a desktop's /dev/net/tun is 0666; where it is root's alone, the
		// ordinary user gets one of its own, as a root backend's helper does
		prepare = func() error { return privateTun(65534, 65534) }
	}
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "SANDBOXDESK_TEST_UNPRIVILEGED=1", "HOME="+dir, "TMPDIR=/tmp")
	if _, err := exec.LookPath("ip"); err == nil {
		cmd.Env = append(cmd.Env, testHostEnv+"="+newTestNetHost(t).serveHTTP(t, 8080, 123457))
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := startInOwnKeyring(cmd, prepare); err != nil {
		t.Fatalf("start the suite as an ordinary user: %v", err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the suite as an ordinary user failed: %v\n%s", err, out.Bytes())
	}
	t.Logf("as an ordinary user:\n%s", out.Bytes())
}

func tunUsableByOthers() bool {
	fi, err := os.Stat("/dev/net/tun")
	return err == nil && fi.Mode().Perm()&0o006 == 0o006
}
