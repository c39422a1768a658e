//go:build unix

package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// sample is one figure's measurements.
type sample []float64

func (s sample) quantile(q float64) float64 {
	if len(s) == 0 {
		return 0
	}
	c := slices.Clone(s)
	slices.Sort(c)
	return c[int(q*float64(len(c)-1)+0.5)]
}

// interleave runs each of fns once per round, rounds times, so slow
// drift on a shared machine falls on every figure alike.
func interleave(rounds int, fns ...func() float64) []sample {
	out := make([]sample, len(fns))
	for range rounds {
		for i, f := range fns {
			out[i] = append(out[i], f())
		}
	}
	return out
}

// timed runs a command and returns its wall time in milliseconds; it
// stops the bench when the command fails.
func timed(stdin io.Reader, args ...string) float64 {
	return timedCmd(command(stdin, args...))
}

func command(stdin io.Reader, args ...string) *exec.Cmd {
	c := exec.Command(args[0], args[1:]...)
	c.Stdin = stdin
	c.Stdout = io.Discard
	c.Dir = "/"
	return c
}

func timedCmd(c *exec.Cmd) float64 {
	var errb bytes.Buffer
	c.Stderr = &errb
	t := time.Now()
	if err := c.Run(); err != nil {
		fail("%s: %v: %s", strings.Join(c.Args, " "), err, strings.TrimSpace(errb.String()))
	}
	return ms(time.Since(t))
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// rssMiB is a process's resident memory.
func rssMiB(pid int) float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		fail("read the memory of pid %d: %v", pid, err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

// descendants lists the processes under pid whose first argument is
// marker.
func descendants(pid int, marker string) []int {
	parent := map[int]int{}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		p, _ := strconv.Atoi(filepath.Base(d))
		st, err := os.ReadFile(d + "/stat")
		if err != nil {
			continue
		}
		// "pid (comm) state ppid ...": comm may hold spaces
		rest := string(st[bytes.LastIndexByte(st, ')')+2:])
		f := strings.Fields(rest)
		if len(f) > 1 {
			parent[p], _ = strconv.Atoi(f[1])
		}
	}
	var out []int
	for p := range parent {
		cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p))
		if args := bytes.Split(cmd, []byte{0}); len(args) < 2 || string(args[1]) != marker {
			continue
		}
		for a := parent[p]; a > 1; a = parent[a] {
			if a == pid {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

func fail(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", a...)
	cleanup()
	os.Exit(1)
}

var cleanups []func()

func cleanup() {
	for i := len(cleanups) - 1; i >= 0; i-- {
		cleanups[i]()
	}
	cleanups = nil
}
