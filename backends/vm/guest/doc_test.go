package guest

import "testing"

func TestParseCmdline(t *testing.T) {
	qemuDefaults := Settings{Hostname: "sandbox", Network: "off", Share: "workspace", ShareFS: "9p", Port: "sandboxdesk.agent"}
	tests := []struct {
		cmdline string
		want    Settings
	}{
		{"console=ttyS0 quiet", qemuDefaults},
		{"console=ttyS0 sandboxdesk.hostname=ci-web sandboxdesk.net=on sandboxdesk.share=ws sandboxdesk.port=p\n",
			Settings{Hostname: "ci-web", Network: "on", Share: "ws", ShareFS: "9p", Port: "p"}},
		{"sandboxdesk.net=host", Settings{Hostname: "sandbox", Network: "host", Share: "workspace", ShareFS: "9p", Port: "sandboxdesk.agent"}},
		// an unknown mode is no network
		{"sandboxdesk.net=bridge", qemuDefaults},
		{"sandboxdesk.root=/dev/vda", func() Settings { s := qemuDefaults; s.Root = "/dev/vda"; return s }()},
		// the root is the disk the host attaches or none
		{"sandboxdesk.root=/dev/sda1", qemuDefaults},
		{"sandboxdesk.root=/workspace/../dev/vda", qemuDefaults},
		// a name that cannot be a hostname is not used
		{"sandboxdesk.hostname=a/b sandboxdesk.net=off", qemuDefaults},
		// what the vz driver writes
		{"console=hvc0 sandboxdesk.hostname=web sandboxdesk.net=on sandboxdesk.share=workspace sandboxdesk.sharefs=virtiofs sandboxdesk.vsock=6123 sandboxdesk.dhcp=1",
			Settings{Hostname: "web", Network: "on", Share: "workspace", ShareFS: "virtiofs", Port: "sandboxdesk.agent", Vsock: 6123, DHCP: true}},
		// an unknown file system is 9p; a port that is no vsock port is
		// the serial port
		{"sandboxdesk.sharefs=nfs sandboxdesk.vsock=0", qemuDefaults},
		{"sandboxdesk.vsock=4294967295", qemuDefaults},
		{"sandboxdesk.vsock=-1 sandboxdesk.dhcp=yes", qemuDefaults},
	}
	for _, tt := range tests {
		if got := ParseCmdline(tt.cmdline); got != tt.want {
			t.Errorf("%q: %+v, want %+v", tt.cmdline, got, tt.want)
		}
	}
}
