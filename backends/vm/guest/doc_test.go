package guest

import "testing"

func TestParseCmdline(t *testing.T) {
	tests := []struct {
		cmdline string
		want    Settings
	}{
		{"console=ttyS0 quiet", Settings{Hostname: "sandbox", Network: "off", Share: "workspace", Port: "sandboxdesk.agent"}},
		{"console=ttyS0 sandboxdesk.hostname=ci-web sandboxdesk.net=on sandboxdesk.share=ws sandboxdesk.port=p\n",
			Settings{Hostname: "ci-web", Network: "on", Share: "ws", Port: "p"}},
		{"sandboxdesk.net=host", Settings{Hostname: "sandbox", Network: "host", Share: "workspace", Port: "sandboxdesk.agent"}},
		// an unknown mode is no network
		{"sandboxdesk.net=bridge", Settings{Hostname: "sandbox", Network: "off", Share: "workspace", Port: "sandboxdesk.agent"}},
		{"sandboxdesk.root=/dev/vda", Settings{Hostname: "sandbox", Network: "off", Share: "workspace", Port: "sandboxdesk.agent", Root: "/dev/vda"}},
		// the root is the disk the host attaches or none
		{"sandboxdesk.root=/dev/sda1", Settings{Hostname: "sandbox", Network: "off", Share: "workspace", Port: "sandboxdesk.agent"}},
		{"sandboxdesk.root=/workspace/../dev/vda", Settings{Hostname: "sandbox", Network: "off", Share: "workspace", Port: "sandboxdesk.agent"}},
		// a name that cannot be a hostname is not used
		{"sandboxdesk.hostname=a/b sandboxdesk.net=off", Settings{Hostname: "sandbox", Network: "off", Share: "workspace", Port: "sandboxdesk.agent"}},
	}
	for _, tt := range tests {
		if got := ParseCmdline(tt.cmdline); got != tt.want {
			t.Errorf("%q: %+v, want %+v", tt.cmdline, got, tt.want)
		}
	}
}
