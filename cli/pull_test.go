package cli

import (
	"testing"

	"sandboxdesk/ipc"
)

func TestProgressLine(t *testing.T) {
	tests := []struct {
		d    ipc.Download
		want string
	}{
		{ipc.Download{Bytes: 0, Total: 40 << 20}, "pulling tiny [........................]   0% 0 B of 40 MiB, 0 B/s"},
		{ipc.Download{Bytes: 10 << 20, Total: 40 << 20, BytesPerSec: 3 << 20}, "pulling tiny [######..................]  25% 10 MiB of 40 MiB, 3 MiB/s"},
		{ipc.Download{Bytes: 40 << 20, Total: 40 << 20, BytesPerSec: 5 << 20}, "pulling tiny [########################] 100% 40 MiB of 40 MiB, 5 MiB/s"},
		// a total of nothing is no division by zero
		{ipc.Download{}, "pulling tiny [........................]   0% 0 B of 0 B, 0 B/s"},
	}
	for _, tt := range tests {
		if got := progressLine("tiny", tt.d); got != tt.want {
			t.Errorf("%+v:\n got %q\nwant %q", tt.d, got, tt.want)
		}
	}
}
