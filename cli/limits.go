package cli

import (
	"context"
	"flag"
	"fmt"
	"strconv"
)

// limitFlag is a capacity limit: a number, or "recommended".
type limitFlag struct {
	n     *int
	given bool
}

func (f *limitFlag) String() string {
	if f.n == nil {
		return ""
	}
	return strconv.Itoa(*f.n)
}

func (f *limitFlag) Set(s string) error {
	f.given = true
	if s == "recommended" {
		f.n = nil
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return fmt.Errorf("use a number of at least 1, or recommended")
	}
	f.n = &n
	return nil
}

var limitsCommand = command{
	summary: "show or set the capacity limits (Settings' Sandboxes at once and Retained)",
	usage:   "[--at-once N|recommended] [--retained N|recommended]",
	flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		var atOnce, retained limitFlag
		fs.Var(&atOnce, "at-once", "how many sandboxes run at once; recommended follows the host")
		fs.Var(&retained, "retained", "how many sandboxes keep a checkpoint; recommended follows the host")
		return func(ctx context.Context, e *env, args []string) error {
			if err := noArgs(args); err != nil {
				return err
			}
			sbx, err := e.open(ctx)
			if err != nil {
				return err
			}
			lim, err := sbx.Limits(ctx)
			if err == nil && (atOnce.given || retained.given) {
				set, keep := lim.CustomAtOnce, lim.CustomRetained
				if atOnce.given {
					set = atOnce.n
				}
				if retained.given {
					keep = retained.n
				}
				lim, err = sbx.SetLimits(ctx, set, keep)
			}
			if err != nil {
				return exitFor(err)
			}
			if e.json {
				return printJSON(e.Out, lim)
			}
			word := func(custom *int) string {
				if custom == nil {
					return "recommended"
				}
				return "custom"
			}
			return printTable(e.Out, [][]string{
				{"At once", strconv.Itoa(lim.AtOnce), word(lim.CustomAtOnce)},
				{"Retained", strconv.Itoa(lim.Retained), word(lim.CustomRetained)},
				{"Recommended", fmt.Sprintf("%d at once, %d retained", lim.Recommended.AtOnce, lim.Recommended.Retained)},
			})
		}
	},
}
