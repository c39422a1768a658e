//go:build unix

// table is make bench: it measures sandboxdesk beside an anchor for each
// figure (raw bwrap, a host pipe, a ten-line Fyne app), interleaved in
// one run, and prints one table (median and p10-p90 spread); --json FILE
// writes it too. It needs root or user namespaces, bubblewrap, the
// binaries of make build, slirp4netns for the network rows (a download
// needs root), and Xvfb and xdotool for the app rows.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"
)

// row is one figure beside its anchor.
type row struct {
	Figure       string  `json:"figure"`
	Unit         string  `json:"unit"`
	Median       float64 `json:"median"`
	P10          float64 `json:"p10"`
	P90          float64 `json:"p90"`
	Anchor       string  `json:"anchor,omitempty"`
	AnchorMedian float64 `json:"anchorMedian,omitempty"`
	AnchorP10    float64 `json:"anchorP10,omitempty"`
	AnchorP90    float64 `json:"anchorP90,omitempty"`
	Goal         string  `json:"goal,omitempty"`
	Runs         int     `json:"runs"`
}

type bench struct {
	bin   string // folder with sandboxdesk, sandboxdesk-serve, sandboxdesk-app, sandboxdesk-agent
	tmp   string
	root  string
	serve *exec.Cmd
	rows  []row
}

func main() {
	bin := flag.String("bin", "bin", "folder holding the binaries of make build")
	jsonOut := flag.String("json", "", "also write the table as JSON to this file")
	rounds := flag.Int("rounds", 21, "interleaved rounds of the fast figures")
	flag.Parse()
	start := time.Now()
	b := &bench{}
	var err error
	if b.bin, err = filepath.Abs(*bin); err != nil {
		fail("%v", err)
	}
	if b.tmp, err = os.MkdirTemp("", "sandboxdesk-bench-"); err != nil {
		fail("%v", err)
	}
	os.Chmod(b.tmp, 0o755)
	cleanups = append(cleanups, func() { os.RemoveAll(b.tmp) })
	b.root = filepath.Join(b.tmp, "root")

	n := *rounds
	b.serveStart()
	b.add(row{Figure: "serve RSS, idle", Unit: "MiB", Goal: "< 30"}, sample{rssMiB(b.serve.Process.Pid)}, nil)
	b.cli("create", "box")
	b.execRows(n)
	b.agentRow()
	b.backendRows(5)
	b.reuseRow(n)
	b.throughputRow(11)
	b.coldRow(n)
	b.listRows(n)
	b.defaultsRow(n)
	b.networkRows()
	b.appRows(9)
	cleanup()

	m := machine()
	printTable(os.Stdout, b.rows, m, time.Since(start))
	if *jsonOut != "" {
		data, _ := json.MarshalIndent(map[string]any{"machine": m, "rows": b.rows, "seconds": time.Since(start).Seconds()}, "", "  ")
		if err := os.WriteFile(*jsonOut, append(data, '\n'), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
	}
}

// add records a figure and its anchor (nil: the goal is the anchor).
func (b *bench) add(r row, fig, anchor sample) {
	r.Median, r.P10, r.P90, r.Runs = fig.quantile(0.5), fig.quantile(0.1), fig.quantile(0.9), len(fig)
	if anchor != nil {
		r.AnchorMedian, r.AnchorP10, r.AnchorP90 = anchor.quantile(0.5), anchor.quantile(0.1), anchor.quantile(0.9)
	}
	b.rows = append(b.rows, r)
	fmt.Fprintf(os.Stderr, "bench: %s: %.3g %s\n", r.Figure, r.Median, r.Unit)
}

func (b *bench) exe() string { return filepath.Join(b.bin, "sandboxdesk") }

// cliArgs is a command line of sandboxdesk for the bench's root.
func (b *bench) cliArgs(args ...string) []string {
	return append([]string{b.exe(), "--root", b.root}, args...)
}

func (b *bench) cli(args ...string) float64 { return timed(nil, b.cliArgs(args...)...) }

// serveStart starts the controller of the bench's root and waits for its
// socket.
func (b *bench) serveStart() {
	log, err := os.OpenFile(filepath.Join(b.tmp, "serve.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		fail("%v", err)
	}
	b.serve = exec.Command(b.exe(), "--root", b.root, "serve")
	b.serve.Stdout, b.serve.Stderr, b.serve.Dir = log, log, "/"
	if err := b.serve.Start(); err != nil {
		fail("start serve: %v", err)
	}
	log.Close()
	stop := func() { b.serveStop() }
	cleanups = append(cleanups, stop)
	for range 500 {
		if _, err := os.Stat(filepath.Join(b.root, "control.sock")); err == nil {
			time.Sleep(300 * time.Millisecond) // settle before its memory is read
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	fail("serve did not open its socket; see %s", filepath.Join(b.tmp, "serve.log"))
}

func (b *bench) serveStop() {
	if b.serve == nil {
		return
	}
	exec.Command(b.exe(), "--root", b.root, "quit").Run()
	b.serve.Wait()
	b.serve = nil
}

func machine() map[string]string {
	read := func(p, key string) string {
		data, _ := os.ReadFile(p)
		for _, l := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == key {
				return strings.TrimSpace(v)
			}
		}
		return "?"
	}
	kernel, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	bw, _ := exec.Command("bwrap", "--version").Output()
	return map[string]string{
		"cpu":    read("/proc/cpuinfo", "model name"),
		"cpus":   fmt.Sprint(runtime.NumCPU()),
		"memory": read("/proc/meminfo", "MemTotal"),
		"kernel": strings.TrimSpace(string(kernel)),
		"bwrap":  strings.TrimSpace(string(bw)),
		"go":     runtime.Version(),
		"date":   time.Now().UTC().Format(time.RFC3339),
		"asRoot": fmt.Sprint(os.Geteuid() == 0),
	}
}

func printTable(w *os.File, rows []row, m map[string]string, took time.Duration) {
	fmt.Fprintf(w, "sandboxdesk bench, %s (%s CPUs, %s), Linux %s, %s, %s; %s in %.0f s\n",
		m["cpu"], m["cpus"], m["memory"], m["kernel"], m["bwrap"], m["go"], m["date"], took.Seconds())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "figure\tmedian (p10-p90)\tanchor\tanchor median (p10-p90)\tratio\tgoal\t")
	for _, r := range rows {
		anchor, ratio := "-", "-"
		if r.Anchor != "" {
			anchor = fmt.Sprintf("%s (%s-%s)", fmtNum(r.AnchorMedian), fmtNum(r.AnchorP10), fmtNum(r.AnchorP90))
			if r.AnchorMedian > 0 {
				ratio = fmt.Sprintf("%.2fx", r.Median/r.AnchorMedian)
			}
		}
		fmt.Fprintf(tw, "%s\t%s %s (%s-%s)\t%s\t%s\t%s\t%s\t\n", r.Figure, fmtNum(r.Median), r.Unit, fmtNum(r.P10), fmtNum(r.P90),
			orDash(r.Anchor), anchor, ratio, orDash(r.Goal))
	}
	tw.Flush()
}

func fmtNum(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
