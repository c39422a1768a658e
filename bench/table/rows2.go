//go:build unix

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"sandboxdesk/backends/testvm"
	"sandboxdesk/controller"
	"sandboxdesk/host"
)

// listRows lists 1, 100 and 1,000 sandboxes, stopped: copies of the
// bench's sandbox the controller finds in their folders at its start.
func (b *bench) listRows(n int) {
	b.serveStop()
	meta := b.boxMeta()
	b.clone(meta, "h", 100)
	b.serveStart()
	b.add(row{Figure: "serve RSS, 100 sandboxes (stopped)", Unit: "MiB", Goal: "-"}, sample{rssMiB(b.serve.Process.Pid)}, nil)
	b.serveStop()
	b.clone(meta, "k", 1000)
	b.serveStart()
	s := interleave(n,
		func() float64 { return b.cli("list") },
		func() float64 { return b.cli("--prefix", "h", "list") },
		func() float64 { return b.cli("--prefix", "k", "list") },
	)
	b.add(row{Figure: "list, 1 sandbox (CLI)", Unit: "ms"}, s[0], nil)
	b.add(row{Figure: "list, 100 sandboxes (CLI)", Unit: "ms", Anchor: "list, 1"}, s[1], s[0])
	b.add(row{Figure: "list, 1,000 sandboxes (CLI)", Unit: "ms", Anchor: "list, 1", Goal: "< 20 ms"}, s[2], s[0])
}

// boxMeta is the bench sandbox's sandbox.json.
func (b *bench) boxMeta() map[string]any {
	files, _ := filepath.Glob(filepath.Join(b.root, "sandboxes", "*", "sandbox.json"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		var m map[string]any
		if err == nil && json.Unmarshal(data, &m) == nil && m["name"] == "box" && m["prefix"] == "" {
			return m
		}
	}
	fail("the bench sandbox's sandbox.json is not in %s", b.root)
	return nil
}

func (b *bench) clone(meta map[string]any, prefix string, n int) {
	for i := range n {
		id := fmt.Sprintf("sb-%016x", rand.Uint64())
		meta["id"], meta["prefix"], meta["name"] = id, prefix, fmt.Sprintf("s%d", i)
		data, _ := json.Marshal(meta)
		dir := filepath.Join(b.root, "sandboxes", id)
		ws := filepath.Join(b.root, "workspaces", fmt.Sprintf("%s-s%d", prefix, i))
		for _, d := range []string{dir, ws} {
			if err := os.MkdirAll(d, 0o700); err != nil {
				fail("%v", err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, "sandbox.json"), data, 0o600); err != nil {
			fail("%v", err)
		}
	}
}

// defaultsRow asks Defaults in-process, with the host measured as the
// controller does it and with a fixed measurement.
func (b *bench) defaultsRow(n int) {
	ctx := context.Background()
	open := func(name string, measure func(context.Context) (host.Info, error)) *controller.Controller {
		dir := filepath.Join(b.tmp, name)
		vm, err := testvm.New(filepath.Join(dir, "testvm"), testvm.Config{})
		if err != nil {
			fail("%v", err)
		}
		c, err := controller.Open(ctx, controller.Options{Root: dir, Backends: map[string]controller.Backend{testvm.Name: vm},
			DefaultBackend: testvm.Name, Measure: measure})
		if err != nil {
			fail("%v", err)
		}
		return c
	}
	fixed := host.Info{CPUCount: 8, EffectiveCPUCores: 8, TotalMemoryBytes: 16 << 30, AvailableDiskBytes: 100 << 30}
	real, still := open("defaults-real", nil), open("defaults-fixed", func(context.Context) (host.Info, error) { return fixed, nil })
	defer real.Close()
	defer still.Close()
	per := func(c *controller.Controller) func() float64 {
		return func() float64 {
			const calls = 200
			t := time.Now()
			for range calls {
				if _, err := c.Defaults(ctx); err != nil {
					fail("defaults: %v", err)
				}
			}
			return float64(time.Since(t).Microseconds()) / calls
		}
	}
	s := interleave(n, per(real), per(still))
	b.add(row{Figure: "Defaults, in-process", Unit: "us", Anchor: "same, host fixed", Goal: "< 50 us"}, s[0], s[1])
}

// appRows starts the app and a ten-line Fyne app under Xvfb, in turn, and
// times each to its window; memory is read a second after.
func (b *bench) appRows(n int) {
	for _, tool := range []string{"Xvfb", "xdotool", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			fmt.Fprintf(os.Stderr, "bench: %s is not installed: no app rows\n", tool)
			return
		}
	}
	tenline := filepath.Join(b.tmp, "tenline")
	if msg, err := exec.Command("go", "build", "-tags", "migrated_fynedo", "-o", tenline, "./bench/tenline").CombinedOutput(); err != nil {
		fail("build the ten-line Fyne app: %v\n%s", err, msg)
	}
	display, stop, err := startXvfb()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench: no app rows:", err)
		return
	}
	defer stop()
	env := append(os.Environ(), "DISPLAY="+display)
	if bus, stopBus, err := startSessionBus(); err == nil {
		defer stopBus()
		env = append(env, "DBUS_SESSION_BUS_ADDRESS="+bus)
	} else {
		fmt.Fprintln(os.Stderr, "bench: app rows without a session bus:", err)
	}
	appRoot := filepath.Join(b.tmp, "approot")
	var rss [2]sample
	var failed error
	// a window that never shows costs these two rows, not the table
	run := func(i int, title string, args ...string) float64 {
		if failed != nil {
			return 0
		}
		t, m, err := window(env, title, args...)
		failed = err
		rss[i] = append(rss[i], m)
		return t
	}
	s := interleave(n,
		func() float64 {
			return run(0, "^sandboxdesk$", filepath.Join(b.bin, "sandboxdesk-app"), "--root", appRoot)
		},
		func() float64 { return run(1, "^tenline$", tenline) },
	)
	if failed != nil {
		fmt.Fprintln(os.Stderr, "bench: no app rows:", failed)
		return
	}
	b.add(row{Figure: "app, time to window", Unit: "ms", Anchor: "ten-line Fyne app", Goal: "<= 1.2x"}, s[0], s[1])
	b.add(row{Figure: "app RSS", Unit: "MiB", Anchor: "ten-line Fyne app", Goal: "<= 1.1x"}, rss[0], rss[1])
}

// startXvfb starts a display server on a display number it chooses
// itself (-displayfd), so a display another program already holds is
// never shared, and returns once the server accepts clients.
func startXvfb() (display string, stop func(), err error) {
	r, w, err := os.Pipe()
	if err != nil {
		return "", nil, err
	}
	defer r.Close()
	// -noreset: see packaging/xvfb.sh; each round's program is the
	// server's last client when it quits
	x := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "1280x800x24", "-nolisten", "tcp", "-noreset")
	x.ExtraFiles = []*os.File{w}
	err = x.Start()
	w.Close()
	if err != nil {
		return "", nil, fmt.Errorf("start Xvfb: %w", err)
	}
	stop = func() { x.Process.Kill(); x.Wait() }
	r.SetReadDeadline(time.Now().Add(30 * time.Second))
	line, err := bufio.NewReader(r).ReadString('\n')
	n, convErr := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || convErr != nil {
		stop()
		return "", nil, fmt.Errorf("Xvfb named no display: %q %v", line, err)
	}
	return fmt.Sprintf(":%d", n), stop, nil
}

// startSessionBus starts a session bus of the bench's own, as every
// desktop session has one: without it, a Fyne app launches a bus of its
// own at each start (dbus-launch) and leaves it running.
func startSessionBus() (address string, stop func(), err error) {
	c := exec.Command("dbus-daemon", "--session", "--nofork", "--print-address")
	out, err := c.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if err := c.Start(); err != nil {
		return "", nil, fmt.Errorf("start dbus-daemon: %w", err)
	}
	stop = func() { c.Process.Kill(); c.Wait() }
	got := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		got <- strings.TrimSpace(line)
	}()
	select {
	case address = <-got:
	case <-time.After(10 * time.Second):
	}
	if address == "" {
		stop()
		return "", nil, fmt.Errorf("dbus-daemon printed no address")
	}
	return address, stop, nil
}

// window runs a program with env until its window shows, and returns
// the time that took and its memory a second later.
func window(env []string, title string, args ...string) (float64, float64, error) {
	c := exec.Command(args[0], args[1:]...)
	c.Env = env
	c.Dir = "/"
	t := time.Now()
	if err := c.Start(); err != nil {
		return 0, 0, fmt.Errorf("start %s: %w", args[0], err)
	}
	defer func() {
		c.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { c.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			c.Process.Kill()
			<-done
		}
	}()
	for time.Since(t) < 30*time.Second {
		q := exec.Command("xdotool", "search", "--onlyvisible", "--name", title)
		q.Env = c.Env
		if out, err := q.Output(); err == nil && len(out) > 0 {
			took := ms(time.Since(t))
			time.Sleep(time.Second)
			return took, rssMiB(c.Process.Pid), nil
		}
		time.Sleep(5 * time.Millisecond)
	}
	return 0, 0, fmt.Errorf("%s showed no window %q in 30 s", args[0], title)
}
