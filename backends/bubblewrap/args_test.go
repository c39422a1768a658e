package bubblewrap

import (
	"slices"
	"strings"
	"testing"
)

func TestBwrapArgs(t *testing.T) {
	l := layout{
		Name: "agent-7", ImageRoot: "/", HostImage: true, StateDir: "/r/sandboxes/sb-1",
		Workspace: "/r/workspaces/agent-7", Network: true, Agent: "/r/agent/sandboxdesk-agent",
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
		etc:   []etcEntry{{name: "ld.so.cache"}, {name: "ssl"}},
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
		"--bind /r/workspaces/agent-7 /workspace", "--bind /r/sandboxes/sb-1/run /run/sandboxdesk",
		"--ro-bind /r/agent/sandboxdesk-agent /opt/sandboxdesk/agent",
		"--ro-bind /lib/x86_64-linux-gnu/libc.so.6 /opt/sandboxdesk/lib/libc.so.6",
		"-- /opt/sandboxdesk/lib/ld-linux-x86-64.so.2 --library-path /opt/sandboxdesk/lib /opt/sandboxdesk/agent __sandboxdesk_agent /run/sandboxdesk/agent.sock",
	} {
		if !strings.Contains(line, want) {
			t.Errorf("args lack %q:\n%s", want, line)
		}
	}
	for _, never := range []string{"--unshare-net", "--die-with-parent", "-bind /home ", "-bind /root", " /root ", "--ro-bind /etc /etc", "--share-net", "--setenv PATH"} {
		if strings.Contains(line, never) {
			t.Errorf("args contain %q:\n%s", never, line)
		}
	}
	l.Network = false
	if !slices.Contains(bwrapArgs(l, img), "--unshare-net") {
		t.Error("network off does not unshare the network")
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

func TestEtcFiles(t *testing.T) {
	f := etcFiles("w")
	if !strings.Contains(f["passwd"], "sandbox:x:1000:1000:sandbox:/home/sandbox:/bin/sh") || f["hostname"] != "w\n" || !strings.Contains(f["hosts"], "127.0.1.1\tw") {
		t.Errorf("etc files %+v", f)
	}
}
