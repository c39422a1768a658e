//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// rawBwrap is the command the bubblewrap backend starts for a sandbox,
// with `true` for the agent, as its test TestWriteRawCommand writes it.
type rawBwrap struct {
	Args       []string `json:"args"`
	NewMountNS bool     `json:"newMountNS"`
}

func (b *bench) rawCommand() rawBwrap {
	out := filepath.Join(b.tmp, "raw.json")
	c := exec.Command("go", "test", "-count=1", "-run", "^TestWriteRawCommand$", "./backends/bubblewrap")
	c.Env = append(os.Environ(), "SANDBOXDESK_BENCH_RAW="+out, "SANDBOXDESK_BENCH_AGENT="+filepath.Join(b.bin, "sandboxdesk-agent"))
	if msg, err := c.CombinedOutput(); err != nil {
		fail("lay out a raw bwrap run: %v\n%s", err, msg)
	}
	data, err := os.ReadFile(out)
	var raw rawBwrap
	if err != nil || json.Unmarshal(data, &raw) != nil {
		fail("read the raw bwrap command: %v", err)
	}
	if raw.Args[0] == "/proc/self/exe" {
		// the launcher a root controller runs first: the controller's own
		// program, which serve became
		raw.Args[0] = filepath.Join(b.bin, "sandboxdesk-serve")
	}
	return raw
}

func (r rawBwrap) run() float64 {
	c := command(strings.NewReader("go\n"), r.Args...) // through the start gate
	if r.NewMountNS {
		c.SysProcAttr = ownMountNS()
	}
	return timedCmd(c)
}

var raw rawBwrap

func (b *bench) execRows(n int) {
	raw = b.rawCommand()
	minimal := []string{"bwrap", "--ro-bind", "/", "/", "true"}
	s := interleave(n,
		func() float64 { return b.cli("exec", "box", "--", "true") },
		raw.run,
		func() float64 { return timed(nil, minimal...) },
	)
	b.add(row{Figure: "exec true (CLI)", Unit: "ms", Anchor: "raw bwrap, same flags", Goal: "<= 0.5x raw"}, s[0], s[1])
	b.add(row{Figure: "exec true (CLI)", Unit: "ms", Anchor: "bwrap --ro-bind / / true", Goal: "<= 2x"}, s[0], s[2])
}

func (b *bench) agentRow() {
	agents := descendants(b.serve.Process.Pid, "__sandboxdesk_agent")
	if len(agents) != 1 {
		fail("found %d agents of the bench's sandbox, want 1", len(agents))
	}
	b.add(row{Figure: "agent RSS per sandbox", Unit: "MiB", Goal: "<= 8 MB"}, sample{rssMiB(agents[0])}, nil)
	// a root controller keeps a launcher ready once it has started a
	// sandbox: its memory is the serve program's too
	if spare := descendants(b.serve.Process.Pid, "__sandboxdesk_bwrap_prelaunch"); len(spare) == 1 {
		b.add(row{Figure: "launcher kept ready (root) RSS", Unit: "MiB", Goal: "-"}, sample{rssMiB(spare[0])}, nil)
	}
}

func (b *bench) reuseRow(n int) {
	s := interleave(n,
		func() float64 { return b.cli("create", "box") },
		func() float64 { return b.cli("inspect", "box") },
	)
	b.add(row{Figure: "create, reusing (CLI)", Unit: "ms", Anchor: "inspect (CLI)", Goal: "< 5 ms"}, s[0], s[1])
}

func (b *bench) throughputRow(n int) {
	data := bytes.Repeat([]byte("sandboxdesk bench 0123456789abcdef"), 100<<20/34+1)[:100<<20]
	mbps := func(msv float64) float64 { return float64(len(data)) / 1e6 / (msv / 1000) }
	s := interleave(n,
		func() float64 { return mbps(timed(bytes.NewReader(data), b.cliArgs("exec", "box", "--", "cat")...)) },
		func() float64 { return mbps(timed(bytes.NewReader(data), "cat")) },
	)
	b.add(row{Figure: "100 MiB through exec cat", Unit: "MB/s", Anchor: "host pipe through cat", Goal: ">= 0.5x"}, s[0], s[1])
}

func (b *bench) coldRow(n int) {
	i := 0
	s := interleave(n,
		func() float64 {
			i++
			name := fmt.Sprintf("cold%d", i)
			t := b.cli("create", name) + b.cli("stop", name)
			b.cli("rm", name)
			return t
		},
		raw.run,
	)
	b.add(row{Figure: "cold create + stop (CLI)", Unit: "ms", Anchor: "raw bwrap, same flags", Goal: "<= raw + 10 ms + NAT"}, s[0], s[1])
}
