package bubblewrap

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"sandboxdesk/backends"
	"sandboxdesk/backends/agent"
)

// Paths inside a sandbox.
const (
	homeDir      = "/home/sandbox"
	workspaceDir = "/workspace"
	agentDir     = "/opt/sandboxdesk" // the agent and the libraries it needs, read-only
	sandboxUID   = 1000
	sandboxUser  = "sandbox"
)

// systemDirs are taken from the image read-only, as folders or as the
// symlinks a merged-/usr system has.
var systemDirs = []string{"usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32"}

// hostEtc is what the host image shares of the host's /etc: what programs
// need to run (the loader cache, certificates, alternatives, time zone),
// not who uses the machine. passwd, group, hostname and hosts are made for
// the sandbox instead.
var hostEtc = []string{
	"alternatives", "bash.bashrc", "ca-certificates", "ca-certificates.conf", "debian_version",
	"gai.conf", "host.conf", "inputrc", "issue", "ld.so.cache", "ld.so.conf", "ld.so.conf.d",
	"locale.alias", "localtime", "mime.types", "nsswitch.conf", "os-release", "profile",
	"profile.d", "protocols", "python3", "resolv.conf", "rpc", "services", "ssl", "timezone",
	"vim", "wgetrc", "xdg",
}

// generatedEtc are the files the backend writes into the sandbox's folder.
var generatedEtc = []string{"passwd", "group", "hostname", "hosts"}

// resolvConf is written for a sandbox with a network of its own: the host's
// names a resolver the sandbox cannot reach (127.0.0.53 on its loopback).
const resolvConf = "resolv.conf"

// natDNS is the NAT's DNS forwarder inside the sandbox's network
// (slirp4netns's default 10.0.2.0/24).
const natDNS = "10.0.2.3"

// layout is everything that decides a sandbox's bwrap command line.
type layout struct {
	Name      string // the hostname
	ImageRoot string // "/" for the host image, else the root file system
	HostImage bool
	StateDir  string // the sandbox's own folder on the host
	Workspace string
	Network   backends.Network
	// InfoFD and SyncFD are the inherited descriptors of network "on"
	// (0: none): bwrap writes the sandbox's pid to the first, and holds
	// the second open as long as the sandbox lives, which is how the NAT
	// helper knows when to end.
	InfoFD, SyncFD int
	// Agent is the agent binary on the host; Interp and Libs are the
	// dynamic loader and libraries it needs (host paths), empty when it is
	// static.
	Agent  string
	Interp string
	Libs   []string
	// CgroupJoin are the files the sandbox writes "0" to, joining its
	// cgroups before bwrap starts, so every process in it is limited (see
	// cgroup.joinFiles).
	CgroupJoin []string
	// AgentFD is the inherited descriptor of the agent's listening socket,
	// which bwrap passes on to the agent.
	AgentFD int
	// ReadyFD is the inherited write end of the pipe the agent signals
	// readiness on (agent.ReadyPrefix); none when 0.
	ReadyFD int
	// SeccompFD is the inherited descriptor bwrap reads the seccomp filter
	// from (0: none); NestedUserns leaves user namespaces to the sandbox.
	SeccompFD    int
	NestedUserns bool
	// Trust is how the controller's CA variables reach the sandbox; CAData
	// are the descriptors its files are read from.
	Trust  trustPlan
	CAData []dataMount
}

// dataMount is an inherited descriptor whose content bwrap puts, read-only,
// at inside.
type dataMount struct {
	fd     int
	inside string
}

// natMTU is the sandbox interface's MTU: slirp4netns's largest, which
// moves a bulk transfer in a few large frames instead of many small ones.
const natMTU = 65520

// natArgs is the command line that gives the network namespace at
// /proc/self/fd/<netns> a NAT to the host's network, with slirp the
// slirp4netns binary. nsenter first joins the user namespace that owns that
// network namespace (/proc/self/fd/<userns>), where the helper's host user
// is root and the host's is nobody: that is where slirp4netns can make the
// sandbox's interface, lock itself in its own mount namespace and drop
// every capability but binding low ports. (slirp4netns's own --userns-path
// does not serve: with a namespace given by path, its main process never
// joins the user namespace and --enable-sandbox fails.) The helper writes
// to readyFD once the interface is up and ends when exitFD closes, which
// is when the sandbox's bwrap ends. The host's loopback stays out of reach:
// 10.0.2.2 does not lead to it.
func natArgs(slirp string, readyFD, exitFD, userns, netns int) []string {
	return []string{
		"nsenter", "--preserve-credentials", "--user=/proc/self/fd/" + strconv.Itoa(userns), "--",
		slirp, "--configure", "--mtu=" + strconv.Itoa(natMTU), "--disable-host-loopback",
		"--enable-sandbox", "--enable-seccomp",
		"--ready-fd=" + strconv.Itoa(readyFD), "--exit-fd=" + strconv.Itoa(exitFD),
		"--netns-type=path", "/proc/self/fd/" + strconv.Itoa(netns), "tap0",
	}
}

// etcEntry is one entry of the image's /etc as the sandbox sees it.
type etcEntry struct {
	name string
	link string // a symlink's target, to recreate; "" to bind
}

// imageLayout is how an image lays out its top-level system folders
// (real folders, or the symlinks of a merged-/usr system) and which of its
// /etc and /opt entries a sandbox sees.
type imageLayout struct {
	dirs  map[string]bool
	links map[string]string
	etc   []etcEntry
	opt   []etcEntry // an imported image's; its /opt itself is not bound, so the agent's folder can be made in it
}

// bwrapArgs is the bwrap command line for l over an image laid out as img,
// without "bwrap" itself.
func bwrapArgs(l layout, img imageLayout) []string {
	a := []string{
		// no --die-with-parent: it would also end the sandbox with the
		// controller that started it, and a restarted controller adopts
		// running sandboxes instead
		"--new-session", // no TIOCSTI into the caller's terminal
		"--unshare-user", "--uid", strconv.Itoa(sandboxUID), "--gid", strconv.Itoa(sandboxUID),
		"--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
		"--hostname", l.Name,
		"--cap-drop", "ALL",
		"--clearenv",
	}
	if l.SeccompFD > 0 {
		a = append(a, "--seccomp", strconv.Itoa(l.SeccompFD))
	}
	if l.Network != backends.NetworkHost {
		a = append(a, "--unshare-net")
	}
	if l.Network == backends.NetworkOn && l.InfoFD > 0 {
		a = append(a, "--info-fd", strconv.Itoa(l.InfoFD), "--sync-fd", strconv.Itoa(l.SyncFD))
	}
	for _, kv := range append(sandboxEnv(), l.Trust.env...) {
		k, v, _ := strings.Cut(kv, "=")
		a = append(a, "--setenv", k, v)
	}
	a = append(a, "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/run", "--dir", "/var/tmp")
	// /proc/keys lists every key the reading uid may view, and the sandbox
	// runs as a host user who may have keys: their names stay outside
	a = append(a, "--ro-bind", "/dev/null", "/proc/keys", "--ro-bind", "/dev/null", "/proc/key-users")
	dirs := systemDirs
	if !l.HostImage {
		// an imported image's /var is its own, not the host's
		dirs = append(append([]string(nil), systemDirs...), "var")
	}
	for _, d := range dirs {
		if target, ok := img.links[d]; ok {
			a = append(a, "--symlink", target, "/"+d)
		} else if img.dirs[d] {
			a = append(a, "--ro-bind", filepath.Join(l.ImageRoot, d), "/"+d)
		}
	}
	a = append(a, entryArgs(l.ImageRoot, "opt", img.opt)...)
	a = append(a, "--tmpfs", "/etc")
	etc, generated := img.etc, generatedEtc
	if l.Network != backends.NetworkHost {
		// the sandbox's own resolver, never the image's
		etc = slices.DeleteFunc(slices.Clone(etc), func(e etcEntry) bool { return e.name == resolvConf })
		generated = append(slices.Clone(generatedEtc), resolvConf)
	}
	a = append(a, entryArgs(l.ImageRoot, "etc", etc)...)
	for _, f := range generated {
		a = append(a, "--ro-bind", filepath.Join(l.StateDir, "etc", f), "/etc/"+f)
	}
	for _, m := range l.Trust.dirs {
		a = append(a, "--ro-bind", m.host, m.inside)
	}
	for _, d := range l.CAData {
		a = append(a, "--ro-bind-data", strconv.Itoa(d.fd), d.inside)
	}
	a = append(a, "--remount-ro", "/etc")
	a = append(a,
		"--bind", filepath.Join(l.StateDir, "home"), homeDir,
		"--bind", filepath.Join(l.StateDir, "tmp"), "/tmp",
		"--bind", l.Workspace, workspaceDir,
		"--ro-bind", l.Agent, agentDir+"/agent",
	)
	for _, lib := range l.Libs {
		a = append(a, "--ro-bind", lib, agentDir+"/lib/"+filepath.Base(lib))
	}
	a = append(a, "--chdir", workspaceDir, "--")
	if l.Interp != "" {
		a = append(a, agentDir+"/lib/"+filepath.Base(l.Interp), "--library-path", agentDir+"/lib")
	}
	// the agent accepts on a socket the controller bound outside the
	// sandbox and handed down (AgentFD): nothing in the sandbox
	// is a path the controller dials
	a = append(a, agentDir+"/agent", agent.Command, agent.InheritedPrefix+strconv.Itoa(l.AgentFD))
	if l.ReadyFD > 0 {
		a = append(a, agent.ReadyPrefix+strconv.Itoa(l.ReadyFD))
	}
	return a
}

// entryArgs binds the image's entries of folder dir one by one, and
// recreates its links as links: bwrap never follows one on the host.
func entryArgs(imageRoot, dir string, entries []etcEntry) []string {
	var a []string
	for _, e := range entries {
		if e.link != "" {
			a = append(a, "--symlink", e.link, "/"+dir+"/"+e.name)
		} else {
			a = append(a, "--ro-bind", filepath.Join(imageRoot, dir, e.name), "/"+dir+"/"+e.name)
		}
	}
	return a
}

// sandboxEnv is who the sandbox user is; the agent adds PATH and the
// package managers' settings from what the sandbox holds.
func sandboxEnv() []string {
	return []string{
		"HOME=" + homeDir, "USER=" + sandboxUser, "LOGNAME=" + sandboxUser,
		"SHELL=/bin/sh", "LANG=C.UTF-8", "TERM=xterm-256color", "TMPDIR=/tmp",
	}
}

// etcFiles are the generated /etc files for a sandbox named name. A
// sandbox with a network of its own asks the NAT's forwarder for names;
// one with none has no resolver.
func etcFiles(name string, network backends.Network) map[string]string {
	u := strconv.Itoa(sandboxUID)
	files := map[string]string{
		"passwd":   "root:x:0:0:root:/root:/bin/sh\n" + sandboxUser + ":x:" + u + ":" + u + ":" + sandboxUser + ":" + homeDir + ":/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n",
		"group":    "root:x:0:\n" + sandboxUser + ":x:" + u + ":\nnogroup:x:65534:\n",
		"hostname": name + "\n",
		"hosts":    "127.0.0.1\tlocalhost\n127.0.1.1\t" + name + "\n::1\tlocalhost ip6-localhost ip6-loopback\n",
	}
	switch network {
	case backends.NetworkOn:
		files[resolvConf] = "nameserver " + natDNS + "\n"
	case backends.NetworkOff:
		files[resolvConf] = "# no network: no resolver\n"
	}
	return files
}
