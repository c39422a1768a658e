package bubblewrap

import (
	"strings"
	"testing"

	"sandboxdesk/backends"
)

func TestBwrapArgs(t *testing.T) {
	l := layout{
		Name: "agent-7", ImageRoot: "/", HostImage: true, AgentFD: 3, StateDir: "/r/sandboxes/sb-1",
		Workspace: "/r/workspaces/agent-7", Network: backends.NetworkOn, Agent: "/r/agent/sandboxdesk-agent",
		Interp: "/lib64/ld-linux-x86-64.so.2", Libs: []string{"/lib/x86_64-linux-gnu/libc.so.6", "/lib64/ld-linux-x86-64.so.2"},
		SeccompFD: 3,
		Trust: trustPlan{
			env:  []string{"SSL_CERT_FILE=/etc/sandboxdesk/ca/ssl_cert_file/corp.pem", "SSL_CERT_DIR=/etc/sandboxdesk/ca/ssl_cert_dir/0"},
			dirs: []caMount{{host: "/opt/corp/certs", inside: "/etc/sandboxdesk/ca/ssl_cert_dir/0"}},
		},
		CAData: []dataMount{{fd: 4, inside: "/etc/sandboxdesk/ca/ssl_cert_file/corp.pem"}},
	}
	img := imageLayout{
		dirs:  map[string]bool{"usr": true},
		links: map[string]string{"bin": "usr/bin", "lib": "usr/lib", "lib64": "usr/lib64"},
		etc:   []etcEntry{{name: "ld.so.cache"}, {name: "resolv.conf"}, {name: "ssl"}},
	}
	args := bwrapArgs(l, img)
	line := strings.Join(args, " ")
	for _, want := range []string{
		"--new-session", "--unshare-user --uid 1000 --gid 1000", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
		"--hostname agent-7", "--cap-drop ALL", "--clearenv", "--setenv HOME /home/sandbox", "--seccomp 3", "--ro-bind /dev/null /proc/keys",
		"--setenv SSL_CERT_FILE /etc/sandboxdesk/ca/ssl_cert_file/corp.pem",
		"--ro-bind /opt/corp/certs /etc/sandboxdesk/ca/ssl_cert_dir/0 --ro-bind-data 4 /etc/sandboxdesk/ca/ssl_cert_file/corp.pem --remount-ro /etc",
		"--ro-bind /usr /usr", "--symlink usr/bin /bin",
		"--tmpfs /etc", "--ro-bind /etc/ssl /etc/ssl", "--ro-bind /r/sandboxes/sb-1/etc/passwd /etc/passwd", "--remount-ro /etc",
		"--bind /r/sandboxes/sb-1/home /home/sandbox", "--bind /r/sandboxes/sb-1/tmp /tmp",
		"--bind /r/workspaces/agent-7 /workspace",
		"--ro-bind /r/agent/sandboxdesk-agent /opt/sandboxdesk/agent",
		"--ro-bind /lib/x86_64-linux-gnu/libc.so.6 /opt/sandboxdesk/lib/libc.so.6",
		"-- /opt/sandboxdesk/lib/ld-linux-x86-64.so.2 --library-path /opt/sandboxdesk/lib /opt/sandboxdesk/agent __sandboxdesk_agent fd:3",
	} {
		if !strings.Contains(line, want) {
			t.Errorf("args lack %q:\n%s", want, line)
		}
	}
	for _, never := range []string{"--die-with-parent", "-bind /home ", "-bind /root", " /root ", "--ro-bind /etc /etc", "--share-net", "--setenv PATH",
		// the controller dials nothing the sandbox can reach
		"/run/sandboxdesk", "agent.sock", "/sandboxes/sb-1/ctl"} {
		if strings.Contains(line, never) {
			t.Errorf("args contain %q:\n%s", never, line)
		}
	}
	l.HostImage, l.ImageRoot = false, "/r/images/tiny/abc/rootfs"
	img.dirs["var"] = true
	img.opt = []etcEntry{{name: "tool"}, {name: "latest", link: "tool"}}
	line = strings.Join(bwrapArgs(l, img), " ")
	for _, want := range []string{
		"--ro-bind /r/images/tiny/abc/rootfs/var /var",
		"--ro-bind /r/images/tiny/abc/rootfs/opt/tool /opt/tool", "--symlink tool /opt/latest",
		"--ro-bind /r/agent/sandboxdesk-agent /opt/sandboxdesk/agent",
	} {
		if !strings.Contains(line, want) {
			t.Errorf("imported image: args lack %q:\n%s", want, line)
		}
	}
	// its /opt is read-only: bwrap could not make /opt/sandboxdesk in it
	if strings.Contains(line, "rootfs/opt /opt") {
		t.Errorf("an imported image's /opt is bound whole: %s", line)
	}
}

func TestBwrapArgsNetwork(t *testing.T) {
	img := imageLayout{etc: []etcEntry{{name: "resolv.conf"}, {name: "ssl"}}}
	tests := []struct {
		network     backends.Network
		want, never []string
	}{
		{backends.NetworkOn,
			[]string{"--unshare-net --info-fd 7 --sync-fd 8", "--ro-bind /r/sandboxes/sb-1/etc/resolv.conf /etc/resolv.conf"},
			[]string{"--ro-bind /etc/resolv.conf"}},
		{backends.NetworkOff,
			[]string{"--unshare-net", "--ro-bind /r/sandboxes/sb-1/etc/resolv.conf /etc/resolv.conf"},
			[]string{"--info-fd", "--sync-fd", "--ro-bind /etc/resolv.conf"}},
		{backends.NetworkHost,
			[]string{"--ro-bind /etc/resolv.conf /etc/resolv.conf"},
			[]string{"--unshare-net", "--info-fd", "sb-1/etc/resolv.conf"}},
	}
	for _, tt := range tests {
		l := layout{Name: "w", ImageRoot: "/", HostImage: true, StateDir: "/r/sandboxes/sb-1", Workspace: "/r/workspaces/w",
			Network: tt.network, Agent: "/r/agent/sandboxdesk-agent", InfoFD: 7, SyncFD: 8}
		line := strings.Join(bwrapArgs(l, img), " ")
		for _, want := range tt.want {
			if !strings.Contains(line, want) {
				t.Errorf("network %s: args lack %q:\n%s", tt.network, want, line)
			}
		}
		for _, never := range tt.never {
			if strings.Contains(line, never) {
				t.Errorf("network %s: args contain %q:\n%s", tt.network, never, line)
			}
		}
	}
}

func TestNATArgs(t *testing.T) {
	line := strings.Join(natArgs("/usr/bin/slirp4netns", 3, 4, 5, 6), " ")
	for _, want := range []string{
		"nsenter --preserve-credentials --user=/proc/self/fd/5 -- /usr/bin/slirp4netns ",
		"--configure", "--mtu=65520", "--disable-host-loopback", "--enable-sandbox", "--enable-seccomp",
		"--ready-fd=3", "--exit-fd=4", "--netns-type=path /proc/self/fd/6 tap0",
	} {
		if !strings.Contains(line, want) {
			t.Errorf("slirp4netns args lack %q: %s", want, line)
		}
	}
}

func TestEtcFiles(t *testing.T) {
	tests := []struct {
		network backends.Network
		resolv  string // "" when the image's own is used
	}{
		{backends.NetworkOn, "nameserver 10.0.2.3\n"},
		{backends.NetworkOff, "# no network: no resolver\n"},
		{backends.NetworkHost, ""},
	}
	for _, tt := range tests {
		if got := etcFiles("w", tt.network)["resolv.conf"]; got != tt.resolv {
			t.Errorf("network %s: resolv.conf %q, want %q", tt.network, got, tt.resolv)
		}
	}
	f := etcFiles("w", backends.NetworkOn)
	if !strings.Contains(f["passwd"], "sandbox:x:1000:1000:sandbox:/home/sandbox:/bin/sh") || f["hostname"] != "w\n" || !strings.Contains(f["hosts"], "127.0.1.1\tw") {
		t.Errorf("etc files %+v", f)
	}
}
