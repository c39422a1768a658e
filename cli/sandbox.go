package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"sandboxdesk/ipc"
	"sandboxdesk/sandboxes"
	"sandboxdesk/stream"
	"sandboxdesk/units"
)

// durationFlag is a Go duration, or "none" (0).
type durationFlag struct {
	d     time.Duration
	given bool
}

func (f *durationFlag) String() string {
	if !f.given {
		return ""
	}
	return f.d.String()
}

func (f *durationFlag) Set(s string) error {
	f.given = true
	if s == "none" {
		f.d = 0
		return nil
	}
	d, err := units.ParseDuration(s)
	f.d = d
	return err
}

// stopGrace is the flag as a Shape's StopGrace: unset is the default,
// and a given 0 (or "none") is no grace at all.
func (f *durationFlag) stopGrace() time.Duration {
	if f.given && f.d == 0 {
		return sandboxes.NoGrace
	}
	return f.d
}

var createCommand = command{
	summary: "create a sandbox, or reuse the one of that name if it still serves, and start it",
	usage:   "NAME [--backend NAME] [--image IMAGE] [--memory SIZE] [--cpus N] [--disk SIZE] [--pids N] [--idle-timeout DUR] [--max-lifetime DUR] [--stop-grace DUR] [--network on|off|host] [--nested-userns] [--replace]",
	flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		image := fs.String("image", "", "image to start from (default: the backend's, 'host' on Linux)")
		backend := fs.String("backend", "", "vm or bubblewrap on Linux (default: the platform's; images lists what each offers)")
		memory := sizeFlag{min: units.MiB}
		cpus := countFlag{min: 1}
		disk := sizeFlag{min: units.MiB}
		fs.Var(&memory, "memory", "memory (default: a share of the budget, decided at start)")
		fs.Var(&cpus, "cpus", "CPUs (default: up to 4)")
		fs.Var(&disk, "disk", "disk (default: 8GiB; inspect says whether it is enforced)")
		pids := countFlag{min: 1}
		fs.Var(&pids, "pids", "most processes and threads at once (default: the backend's, 4096 at most on Linux)")
		var idle, life, grace durationFlag
		fs.Var(&idle, "idle-timeout", "stop after this long without a command (default: none)")
		fs.Var(&life, "max-lifetime", "stop this long after creation (default: none)")
		fs.Var(&grace, "stop-grace", "how long stop waits before it kills (default: 10s)")
		network := fs.String("network", "on", "on (outbound only, through a NAT), off (none), or host (the host's own network, loopback services included)")
		nested := fs.Bool("nested-userns", false, "let processes inside make user namespaces of their own (rootless containers); off by default, it opens more of the kernel")
		replace := fs.Bool("replace", false, "remove the sandbox and its workspace first, then build clean")
		return func(ctx context.Context, e *env, args []string) error {
			if len(args) != 1 {
				return usagef("create takes one sandbox name")
			}
			shape := sandboxes.Shape{Backend: *backend, Image: *image, Network: *network, NestedUserns: *nested, Replace: *replace,
				Memory: memory.size, CPUs: cpus.n, Disk: disk.size, Pids: pids.n,
				IdleTimeout: idle.d, MaxLifetime: life.d, StopGrace: grace.stopGrace()}
			// Ctrl-C while queued calls the create off and leaves nothing
			ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
			defer stop()
			sbx, err := e.open(ctx)
			if err != nil {
				return err
			}
			stopWatch := watchQueue(ctx, sbx, args[0], e.Err)
			box, err := sbx.Create(ctx, args[0], shape)
			if place := stopWatch(); err != nil {
				return exitFor(calledOff(ctx, args[0], place, err))
			}
			return e.showSandbox(box.Sandbox)
		}
	},
}

var listCommand = command{
	summary: "list this root's sandboxes (of --prefix)",
	flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		return func(ctx context.Context, e *env, args []string) error {
			if err := noArgs(args); err != nil {
				return err
			}
			sbx, err := e.open(ctx)
			if err != nil {
				return err
			}
			list, err := sbx.List(ctx)
			if err != nil {
				return exitFor(err)
			}
			if e.json {
				return printJSON(e.Out, list)
			}
			if len(list) == 0 {
				fmt.Fprintln(e.Out, "No sandboxes yet. 'sandboxdesk create NAME' makes one.")
				return nil
			}
			return printTable(e.Out, sandboxRows(list, time.Now()))
		}
	},
}

// oneName is a command that takes one sandbox name and acts on it.
func oneName(summary string, act func(context.Context, *sandboxes.Sandbox) error) command {
	return command{
		summary: summary,
		usage:   "NAME",
		flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			return func(ctx context.Context, e *env, args []string) error {
				if len(args) != 1 {
					return usagef("give one sandbox name")
				}
				sbx, err := e.open(ctx)
				if err != nil {
					return err
				}
				box := sbx.Sandbox(args[0])
				if err := act(ctx, box); err != nil {
					return exitFor(err)
				}
				return e.showSandbox(box.Sandbox)
			}
		},
	}
}

var inspectCommand = oneName("show one sandbox in full", func(ctx context.Context, b *sandboxes.Sandbox) error {
	_, err := b.Inspect(ctx)
	return err
})
var stopCommand = oneName("stop a sandbox, keeping it and its workspace", func(ctx context.Context, b *sandboxes.Sandbox) error {
	return b.Stop(ctx)
})

var rmCommand = command{
	summary: "remove sandboxes and their workspaces",
	usage:   "NAME... | --all",
	flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		all := fs.Bool("all", false, "remove every sandbox of this root and --prefix")
		return func(ctx context.Context, e *env, args []string) error {
			if *all == (len(args) > 0) {
				return usagef("give sandbox names, or --all")
			}
			sbx, err := e.open(ctx)
			if err != nil {
				return err
			}
			var rep ipc.RemoveReply
			if *all {
				rep.Removed, err = sbx.RemoveAll(ctx)
			} else {
				rep, err = sbx.RemoveNames(ctx, args...)
			}
			if err != nil {
				return exitFor(err)
			}
			if e.json {
				return printJSON(e.Out, rep)
			}
			for _, n := range rep.Removed {
				fmt.Fprintf(e.Out, "removed %s and its workspace\n", n)
			}
			for _, n := range rep.Missing {
				fmt.Fprintf(e.Out, "%s: nothing to remove\n", n)
			}
			if *all && len(rep.Removed) == 0 {
				fmt.Fprintln(e.Out, "nothing to remove")
			}
			return nil
		}
	},
}

var execCommand = command{
	summary:   "run a command in a running sandbox; its exit status is ours",
	usage:     "NAME [--] CMD [ARG...]",
	stopAfter: 1,
	flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		var envs envFlag
		fs.Var(&envs, "env", "KEY=VALUE for the command (repeatable)")
		dir := fs.String("dir", "", "folder inside the sandbox to run in (default /workspace)")
		return func(ctx context.Context, e *env, args []string) error {
			if len(args) < 2 {
				return usagef("exec needs a sandbox name and a command")
			}
			return e.runRemote(ctx, args[0], sandboxes.Cmd{Args: args[1:], Env: envs, Dir: *dir})
		}
	},
}

var shellCommand = command{
	summary: "open a shell in a running sandbox",
	usage:   "NAME",
	flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		return func(ctx context.Context, e *env, args []string) error {
			if len(args) != 1 {
				return usagef("shell takes one sandbox name")
			}
			sh := `if command -v bash >/dev/null; then exec bash -l; else exec sh -l; fi`
			restore, resizes, size := e.rawTerminal()
			defer restore()
			return e.runRemote(ctx, args[0], sandboxes.Cmd{Args: []string{"sh", "-c", sh}, TTY: size, Resizes: resizes})
		}
	},
}

// runRemote streams a command and exits with its status. Ctrl-C and
// friends are passed to the command rather than ending the CLI.
func (e *env) runRemote(ctx context.Context, name string, cmd sandboxes.Cmd) error {
	sbx, err := e.open(ctx)
	if err != nil {
		return err
	}
	osSigs := make(chan os.Signal, 4)
	signal.Notify(osSigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	defer signal.Stop(osSigs)
	sigs := make(chan syscall.Signal, 4)
	go func() {
		for s := range osSigs {
			if ss, ok := s.(syscall.Signal); ok {
				sigs <- ss
			}
		}
	}()
	in := e.In
	if f, ok := in.(*os.File); ok {
		if isDevNull(f) {
			// no input, said with the request: the sandbox starts the
			// command on an empty input, with no pipe to feed
			in = nil
		} else {
			// input piped in arrives in large reads, and so in large frames
			stream.GrowPipe(f)
		}
	}
	if f, ok := e.Out.(*os.File); ok {
		// output into a pipe goes in whole frames, not in the 64 KiB the
		// kernel's default holds: a quarter of the wakeups on both ends
		stream.GrowPipe(f)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr, cmd.Signals = in, e.Out, e.Err, sigs
	code, err := sbx.Sandbox(name).Exec(ctx, cmd)
	if err != nil {
		return exitFor(err)
	}
	if code != 0 {
		return ExitStatus(code)
	}
	return nil
}

// isDevNull reports whether f is the null device (stdin of a command run
// from a script or a service).
func isDevNull(f *os.File) bool {
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err == nil && os.SameFile(fi, null)
}

// ExitStatus is a command's own non-zero exit status, passed through
// with no line of its own: the command already said why. exec returns
// one, and so may IO.Serve.
type ExitStatus int

func (s ExitStatus) Error() string { return "exit status " + strconv.Itoa(int(s)) }

// showSandbox prints one sandbox: all of it as JSON, or as a table.
func (e *env) showSandbox(sb ipc.Sandbox) error {
	if e.json {
		return printJSON(e.Out, sb)
	}
	return printTable(e.Out, sandboxDetail(sb, time.Now()))
}

func sandboxRows(list []ipc.Sandbox, now time.Time) [][]string {
	rows := [][]string{{"NAME", "STATE", "IMAGE", "BACKEND", "MEMORY", "CPUS", "AGE", "ID"}}
	for _, sb := range list {
		rows = append(rows, []string{sb.Name, stateWord(sb), sb.Image, backendWord(sb), memoryWord(sb), cpusWord(sb.CPUs), units.Age(now.Sub(sb.CreatedAt)), sb.ID})
	}
	return rows
}

func sandboxDetail(sb ipc.Sandbox, now time.Time) [][]string {
	rows := [][]string{
		{"Name", sb.Name}, {"ID", sb.ID}, {"State", stateWord(sb)}, {"Image", sb.Image}, {"Backend", sb.Backend},
		{"Memory", memoryWord(sb)}, {"CPUs", cpusWord(sb.CPUs)}, {"Disk", diskWord(sb)}, {"Processes", pidsWord(sb)},
		{"Network", networkWord(sb.Network)},
	}
	if sb.Accel != "" {
		rows = append(rows[:5], append([][]string{{"Acceleration", accelWord(sb.Accel)}}, rows[5:]...)...)
	}
	if sb.NestedUserns {
		rows = append(rows, []string{"Nested user namespaces", "allowed"})
	}
	rows = append(rows, [][]string{
		{"Idle timeout", msWord(sb.IdleTimeoutMs)}, {"Max lifetime", msWord(sb.MaxLifetimeMs)},
		{"Stop grace", time.Duration(sb.StopGraceMs * int64(time.Millisecond)).String()},
		{"Created", sb.CreatedAt.Local().Format(time.DateTime) + " (" + ago(now.Sub(sb.CreatedAt)) + ")"},
		{"Workspace", sb.Workspace},
	}...)
	if sb.Prefix != "" {
		rows = append(rows[:1], append([][]string{{"Fleet", sb.Prefix}}, rows[1:]...)...)
	}
	if sb.OOMKills > 0 || sb.PidsLimitHits > 0 {
		rows = append(rows, []string{"Limit hits", fmt.Sprintf("%d killed out of memory, %d processes refused", sb.OOMKills, sb.PidsLimitHits)})
	}
	if sb.LastNotice != "" {
		at := ""
		if sb.LastNoticeAt != nil {
			at = " (" + ago(now.Sub(*sb.LastNoticeAt)) + ")"
		}
		rows = append(rows, []string{"Last notice", sb.LastNotice + at})
	}
	if sb.Error != "" {
		rows = append(rows, []string{"Error", sb.Error})
	}
	return rows
}

// networkWord says what a sandbox's network reaches; "host" is the one a
// person must not miss.
func networkWord(n string) string {
	switch n {
	case "on":
		return "on (outbound only)"
	case "host":
		return "host (shares the host's network, loopback services included)"
	}
	return n
}

// backendWord names the backend, and for a running VM how it runs: a VM
// under software emulation is the slow one a person looks for.
func backendWord(sb ipc.Sandbox) string {
	if sb.Accel != "" {
		return sb.Backend + " (" + sb.Accel + ")"
	}
	return sb.Backend
}

// accelWord says how a running VM's processor runs.
func accelWord(accel string) string {
	switch accel {
	case "kvm":
		return "kvm (hardware virtualisation)"
	case "tcg":
		return "tcg (software emulation: KVM does not work on this host, so the VM is slow)"
	}
	return accel
}

func stateWord(sb ipc.Sandbox) string {
	if sb.State == ipc.StateQueued && sb.QueuePosition > 0 {
		return "queued #" + strconv.Itoa(sb.QueuePosition)
	}
	return string(sb.State)
}

// memoryWord is what a sandbox holds: a VM's reservation, a limit on host
// processes, or what it asked for.
func memoryWord(sb ipc.Sandbox) string {
	switch {
	case sb.ReservedMiB > 0:
		return units.FormatMiB(sb.ReservedMiB) + " reserved"
	case sb.MemoryLimitMiB > 0:
		return units.FormatMiB(sb.MemoryLimitMiB) + " limit"
	case sb.State == ipc.StateRunning:
		return "limit not enforced"
	case sb.MemoryMiB > 0:
		return units.FormatMiB(sb.MemoryMiB)
	}
	return "default at start"
}

// diskWord is the disk a sandbox asked for, and whether anything holds it
// to that while it runs.
func diskWord(sb ipc.Sandbox) string {
	switch {
	case sb.DiskLimitMiB > 0:
		return units.FormatMiB(sb.DiskLimitMiB) + " limit"
	case sb.State == ipc.StateRunning:
		return mibOrDefault(sb.DiskMiB) + ", not enforced"
	}
	return mibOrDefault(sb.DiskMiB)
}

// pidsWord is a sandbox's limit on processes and threads.
func pidsWord(sb ipc.Sandbox) string {
	switch {
	case sb.PidsLimit > 0:
		return strconv.FormatInt(sb.PidsLimit, 10) + " limit"
	case sb.State == ipc.StateRunning:
		return "limit not enforced"
	case sb.Pids > 0:
		return strconv.FormatInt(sb.Pids, 10)
	}
	return "default at start"
}

func cpusWord(n int) string {
	if n == 0 {
		return "default"
	}
	return strconv.Itoa(n)
}

func mibOrDefault(mib int64) string {
	if mib == 0 {
		return "default"
	}
	return units.FormatMiB(mib)
}

func msWord(ms int64) string {
	if ms == 0 {
		return "none"
	}
	return (time.Duration(ms) * time.Millisecond).String()
}

func ago(d time.Duration) string {
	if a := units.Age(d); a != "now" {
		return a + " ago"
	}
	return "just now"
}
