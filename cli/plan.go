package cli

import (
	"context"
	"flag"
	"fmt"
	"strconv"

	"sandboxdesk/host"
	"sandboxdesk/ipc"
	"sandboxdesk/rules"
	"sandboxdesk/units"
)

// hostFlags are the what-if overrides for planning another host. Whatever
// is not overridden is measured on this one.
type hostFlags struct {
	totalMemory sizeFlag
	cpus        countFlag
	freeDisk    sizeFlag
}

func (h *hostFlags) register(fs *flag.FlagSet, withDisk bool) {
	h.totalMemory.min, h.cpus.min = 1, 1
	fs.Var(&h.totalMemory, "total-memory", "what if the host had this much RAM (e.g. 16GiB)")
	fs.Var(&h.cpus, "cpus-host", "what if the host had this many CPUs")
	if withDisk {
		fs.Var(&h.freeDisk, "free-disk", "what if this much disk were free under the root")
	}
}

// measure checks that no arguments are left, then measures the host under
// the root where no override is given.
func (h *hostFlags) measure(ctx context.Context, e *env, args []string) (host.Info, error) {
	if err := noArgs(args); err != nil {
		return host.Info{}, err
	}
	root, err := rules.ResolveRoot(e.root)
	if err != nil {
		return host.Info{}, err
	}
	return h.resolve(ctx, root)
}

// resolve measures this host where no override is given.
func (h *hostFlags) resolve(ctx context.Context, root string) (host.Info, error) {
	var info host.Info
	if !h.totalMemory.set || !h.cpus.set || !h.freeDisk.set {
		measured, err := host.Measure(ctx, root)
		if err != nil {
			return host.Info{}, fmt.Errorf("%w (give the what-if flags to plan without measuring)", err)
		}
		info = measured
	}
	if h.totalMemory.set {
		info.TotalMemoryBytes = uint64(h.totalMemory.size)
	}
	if h.cpus.set {
		info.CPUCount, info.EffectiveCPUCores = h.cpus.n, float64(h.cpus.n)
	}
	if h.freeDisk.set {
		info.AvailableDiskBytes = uint64(h.freeDisk.size)
	}
	return info, nil
}

var defaultsCommand = command{
	summary: "what a new sandbox would get if it started now",
	usage:   "[--total-memory SIZE] [--cpus-host N] [--active N] [--committed SIZE]",
	flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		var hf hostFlags
		hf.register(fs, false)
		hf.freeDisk.set = true // free disk plays no part in defaults
		active := countFlag{min: 0}
		committed := sizeFlag{min: 0}
		fs.Var(&active, "active", "what if this many sandboxes were starting or running")
		fs.Var(&committed, "committed", "what if running sandboxes had reserved this much memory in all")
		return func(ctx context.Context, e *env, args []string) error {
			if !whatIfGiven(fs) {
				if sbx, err := e.existing(ctx); err == nil && sbx != nil {
					// what the running controller really has committed
					d, err := sbx.Defaults(ctx)
					if err != nil {
						return exitFor(err)
					}
					return e.showDefaults(d, 0)
				}
			}
			info, err := hf.measure(ctx, e, args)
			if err != nil {
				return err
			}
			return e.showDefaults(rules.PlanDefaults(info, active.n, committed.size.MiB()), info.TotalMemoryBytes)
		}
	},
}

// showDefaults prints defaults; totalBytes is the host's RAM when known.
func (e *env) showDefaults(d ipc.Defaults, totalBytes uint64) error {
	if e.json {
		return printJSON(e.Out, d)
	}
	half := "half of this host's RAM"
	if totalBytes > 0 {
		half = "half of " + units.Size(totalBytes).String()
	}
	return printTable(e.Out, [][]string{
		{"Memory", units.FormatMiB(d.MemoryMiB), fmt.Sprintf("beside %d active, %s committed", d.Active, units.FormatMiB(d.CommittedMiB))},
		{"CPUs", strconv.Itoa(d.CPUs)},
		{"Disk", units.FormatMiB(d.DiskMiB)},
		{"Budget", units.FormatMiB(d.BudgetMiB), half},
	})
}

var capacityCommand = command{
	summary: "how many sandboxes this host should run at once and keep",
	usage:   "[--total-memory SIZE] [--cpus-host N] [--free-disk SIZE] [--sandbox-cpus N] [--sandbox-memory SIZE] [--sandbox-disk SIZE] [--checkpoints]",
	flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		var hf hostFlags
		hf.register(fs, true)
		hf.freeDisk.min = 0
		std := rules.StandardSize
		cpus := countFlag{n: std.CPUs, min: 1}
		memory := sizeFlag{size: units.Size(std.MemoryMiB) * units.MiB, min: units.MiB}
		disk := sizeFlag{size: units.Size(std.DiskMiB) * units.MiB, min: units.MiB}
		fs.Var(&cpus, "sandbox-cpus", "CPUs of the sandbox to plan for (default 2)")
		fs.Var(&memory, "sandbox-memory", "memory of the sandbox to plan for (default 4GiB)")
		fs.Var(&disk, "sandbox-disk", "disk of the sandbox to plan for (default 8GiB)")
		checkpoints := fs.Bool("checkpoints", rules.PlatformCheckpoints(), "plan for a backend that keeps checkpoints (default: whether this platform's backends do)")
		return func(ctx context.Context, e *env, args []string) error {
			if sbx, err := e.existing(ctx); err == nil && sbx != nil {
				capa, err := sbx.Capacity(ctx)
				if err != nil {
					return exitFor(err)
				}
				if !whatIfGiven(fs) {
					if e.json {
						return printJSON(e.Out, capa)
					}
					return printCapacity(e, capa)
				}
				if !flagGiven(fs, "checkpoints") {
					// what the running backends say they do (a vz on an
					// older macOS keeps none), not the platform's guess
					*checkpoints = capa.Checkpoints
				}
			}
			info, err := hf.measure(ctx, e, args)
			if err != nil {
				return err
			}
			size := ipc.Size{CPUs: cpus.n, MemoryMiB: memory.size.MiB(), DiskMiB: disk.size.MiB()}
			rec, err := rules.RecommendCapacity(info, size, *checkpoints)
			if err != nil {
				return err
			}
			c := ipc.Capacity{Host: info, Size: size, Checkpoints: *checkpoints, Recommended: rec}
			if e.json {
				return printJSON(e.Out, c)
			}
			return printCapacity(e, c)
		}
	},
}

func printCapacity(e *env, c ipc.Capacity) error {
	h := c.Host
	cores := strconv.Itoa(h.CPUCount) + " CPUs"
	if h.EffectiveCPUCores != float64(h.CPUCount) {
		cores += fmt.Sprintf(" (%s usable under a cgroup limit)", strconv.FormatFloat(h.EffectiveCPUCores, 'f', -1, 64))
	}
	yesNo := map[bool]string{true: "yes", false: "no"}
	return printTable(e.Out, [][]string{
		{"Host", fmt.Sprintf("%s, %s memory, %s free disk", cores, units.Size(h.TotalMemoryBytes), units.Size(h.AvailableDiskBytes))},
		{"Sandbox size", fmt.Sprintf("%d CPUs, %s memory, %s disk", c.Size.CPUs, units.FormatMiB(c.Size.MemoryMiB), units.FormatMiB(c.Size.DiskMiB))},
		{"Checkpoints", yesNo[c.Checkpoints]},
		{"At once", strconv.Itoa(c.Recommended.AtOnce)},
		{"Retained", strconv.Itoa(c.Recommended.Retained)},
	})
}

// whatIfGiven reports whether any flag but the global ones was given: then
// the answer is planned for that host, not asked of the running controller.
// flagGiven reports whether the flag name was given.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

func whatIfGiven(fs *flag.FlagSet) bool {
	given := false
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "root", "prefix", "json", "help":
		default:
			given = true
		}
	})
	return given
}
