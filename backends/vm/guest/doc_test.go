package guest

import "testing"

func TestParseCmdline(t *testing.T) {
	tests := []struct {
		cmdline string
		want    Settings
	}{
		{"console=ttyS0 quiet", Settings{Hostname: "sandbox", Share: "workspace", Port: "sandboxdesk.agent"}},
		{"console=ttyS0 sandboxdesk.hostname=ci-web sandboxdesk.net=on sandboxdesk.share=ws sandboxdesk.port=p\n",
			Settings{Hostname: "ci-web", Network: true, Share: "ws", Port: "p"}},
		// a name that cannot be a hostname is not used
		{"sandboxdesk.hostname=a/b sandboxdesk.net=off", Settings{Hostname: "sandbox", Share: "workspace", Port: "sandboxdesk.agent"}},
	}
	for _, tt := range tests {
		if got := ParseCmdline(tt.cmdline); got != tt.want {
			t.Errorf("%q: %+v, want %+v", tt.cmdline, got, tt.want)
		}
	}
}
