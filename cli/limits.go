package cli

import (
	"context"
	"flag"
	"fmt"
	"strconv"

	"sandboxdesk/ipc"
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
			c, err := e.connect(ctx)
			if err != nil {
				return err
			}
			var lim ipc.Limits
			var req ipc.Request = ipc.LimitsRequest{}
			if atOnce.given || retained.given {
				if err := c.Call(ctx, ipc.LimitsRequest{}, &lim); err != nil {
					return exitFor(err)
				}
				set := ipc.SetLimitsRequest{AtOnce: lim.CustomAtOnce, Retained: lim.CustomRetained}
				if atOnce.given {
					set.AtOnce = atOnce.n
				}
				if retained.given {
					set.Retained = retained.n
				}
				req = set
			}
			if err := c.Call(ctx, req, &lim); err != nil {
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
