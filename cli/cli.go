// Package cli is sandboxdesk's command line: the subcommands that people and
// agents type, their flags, their output (a short aligned table, or one
// JSON document with --json) and their exit statuses. It is not the
// controller and links none: commands either compute a plan from
// measurements on the spot (package rules) or ask the controller that owns
// the root, through the Go client agents use (package sandboxes). serve
// runs the controller main hands it.
//
// Exit statuses: 0 success, 1 an operation that failed, 2 bad input or
// usage. Every error is one line on stderr that says what was wrong.
package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"
	"text/tabwriter"

	"sandboxdesk/rules"
	"sandboxdesk/version"
)

// Exit statuses.
const (
	ExitOK      = 0
	ExitFailure = 1
	ExitUsage   = 2
)

// IO is where a command reads and writes, and the controller `serve` may
// run.
type IO struct {
	In       io.Reader
	Out, Err io.Writer
	// Serve runs the controller of root until ctx ends or a client asks
	// it to quit (daemon.Run), or hands root to a program that does (the
	// command line execs sandboxdesk-serve). The package builds no
	// controller of its own, so a client alone links none: main hands it
	// this. Nil, the serve command says it cannot.
	Serve func(ctx context.Context, root string, log *slog.Logger) error
}

// env is what every command gets: its streams and the global flags.
type env struct {
	IO
	root   string
	prefix string
	json   bool
	help   bool
}

// newFlagSet registers the global flags and cmd's own on a new flag set
// bound to e, and returns it with the command's run function.
func newFlagSet(name string, cmd command, e *env) (*flag.FlagSet, func(context.Context, *env, []string) error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Var((*rootFlag)(&e.root), "root", "root folder holding sandboxes and state (default: per-user data folder, or $"+rules.RootEnv+")")
	fs.StringVar(&e.prefix, "prefix", "", "fleet prefix: sandboxes are named PREFIX-NAME")
	fs.BoolVar(&e.json, "json", false, "print one JSON document instead of a table")
	fs.BoolVar(&e.help, "help", false, "show this help")
	return fs, cmd.flags(fs)
}

// command is one subcommand. flags registers its own flags on fs; run does
// the work with the positional arguments left over.
type command struct {
	summary string
	usage   string
	flags   func(fs *flag.FlagSet) func(ctx context.Context, e *env, args []string) error
	// stopAfter, when set, ends flag parsing after that many positional
	// arguments: what follows is a command line of its own (exec).
	stopAfter int
}

var commands map[string]command

func init() {
	commands = map[string]command{
		"defaults": defaultsCommand,
		"capacity": capacityCommand,
		"create":   createCommand,
		"list":     listCommand,
		"inspect":  inspectCommand,
		"stop":     stopCommand,
		"rm":       rmCommand,
		"exec":     execCommand,
		"shell":    shellCommand,
		"images":   imagesCommand,
		"serve":    serveCommand,
		"quit":     quitCommand,
		"limits":   limitsCommand,
	}
}

// usageError is bad input: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// Run runs the command line args (without the program name) and returns
// the exit status.
func Run(ctx context.Context, args []string, stdio IO) int {
	args = globalsAfterCommand(args)
	if len(args) == 1 && args[0] == "--version" {
		fmt.Fprintln(stdio.Out, "sandboxdesk", version.Version)
		return ExitOK
	}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		topic := helpTopic(args[1:])
		if _, ok := commands[topic]; topic != "" && !ok {
			fmt.Fprintf(stdio.Err, "sandboxdesk help: unknown command %q (see 'sandboxdesk help')\n", topic)
			return ExitUsage
		}
		printHelp(stdio.Out, topic)
		return ExitOK
	}
	name := args[0]
	if strings.HasPrefix(name, "-") {
		return globalsOnly(stdio.Err, args)
	}
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(stdio.Err, "sandboxdesk: unknown command %q (see 'sandboxdesk help')\n", name)
		return ExitUsage
	}
	e := &env{IO: stdio}
	fs, run := newFlagSet(name, cmd, e)
	rest, err := parseArgs(fs, args[1:], cmd.stopAfter)
	if err == nil && e.help {
		printCommandHelp(stdio.Out, name, cmd, fs)
		return ExitOK
	}
	if err == nil {
		err = run(ctx, e, rest)
	}
	return report(stdio.Err, name, err)
}

// globalsOnly answers a command line of global flags and no command: what
// is wrong with the flags, else that a command is missing.
func globalsOnly(w io.Writer, args []string) int {
	fs, _ := newFlagSet("sandboxdesk", command{flags: func(*flag.FlagSet) func(context.Context, *env, []string) error { return nil }}, &env{})
	err := error(usagef("no command given (see 'sandboxdesk help')"))
	if _, perr := parseArgs(fs, args, 0); perr != nil {
		err = perr
	}
	fmt.Fprintf(w, "sandboxdesk: %v\n", err)
	return ExitUsage
}

// globalsAfterCommand moves global flags written before the command
// ("sandboxdesk --root DIR list") after it, where every command reads them.
func globalsAfterCommand(args []string) []string {
	var globals []string
	for len(args) > 0 {
		name, _, hasValue := strings.Cut(strings.TrimLeft(args[0], "-"), "=")
		if !strings.HasPrefix(args[0], "-") {
			break
		}
		switch {
		case name == "json":
			globals, args = append(globals, args[0]), args[1:]
		case (name == "root" || name == "prefix") && hasValue:
			globals, args = append(globals, args[0]), args[1:]
		case (name == "root" || name == "prefix") && len(args) > 1:
			globals, args = append(globals, args[0], args[1]), args[2:]
		default:
			return append(args, globals...) // help, or a stray flag: the command reports it
		}
	}
	if len(args) == 0 {
		return globals
	}
	return append(append([]string{args[0]}, globals...), args[1:]...)
}

// report prints err as one line and maps it to an exit status.
func report(w io.Writer, name string, err error) int {
	if err == nil {
		return ExitOK
	}
	var status ExitStatus
	if errors.As(err, &status) {
		return int(status) // the command's own, already explained by it
	}
	msg := strings.ReplaceAll(err.Error(), "\n", " ")
	fmt.Fprintf(w, "sandboxdesk %s: %s\n", name, msg)
	var ue *usageError
	if errors.As(err, &ue) {
		return ExitUsage
	}
	return ExitFailure
}

func noArgs(args []string) error {
	if len(args) > 0 {
		return usagef("unexpected argument %q", args[0])
	}
	return nil
}

// printJSON writes v as one indented JSON document.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// printTable writes rows of cells as aligned columns, in few writes: a
// tabwriter writes each cell and each run of padding on its own, which
// on a terminal or pipe is a system call apiece (some 30,000 for a list
// of a thousand sandboxes).
func printTable(w io.Writer, rows [][]string) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return bw.Flush()
}

// helpTopic is the command "help" asks about, past the global flags.
func helpTopic(args []string) string {
	for i := 0; i < len(args); i++ {
		name, _, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		switch {
		case !strings.HasPrefix(args[i], "-"):
			return args[i]
		case (name == "root" || name == "prefix") && !hasValue:
			i++ // its value
		}
	}
	return ""
}

func printHelp(w io.Writer, topic string) {
	if cmd, ok := commands[topic]; ok {
		fs, _ := newFlagSet(topic, cmd, &env{})
		printCommandHelp(w, topic, cmd, fs)
		return
	}
	fmt.Fprintln(w, "sandboxdesk runs local sandboxes for coding agents.")
	fmt.Fprintln(w, "\nUsage:\n  sandboxdesk                 open the desktop app\n  sandboxdesk COMMAND [flags]\n  sandboxdesk --version       print the version")
	fmt.Fprintln(w, "\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	rows := [][]string{}
	for _, n := range names {
		rows = append(rows, []string{"  " + n, commands[n].summary})
	}
	printTable(w, rows)
	fmt.Fprintln(w, "\nEvery command takes --root, --prefix and --json. 'sandboxdesk help COMMAND' shows its flags.")
	fmt.Fprintln(w, "Sizes take IEC units (512MiB, 2GiB; a bare number is MiB); durations take Go syntax (90s, 10m).")
}

func printCommandHelp(w io.Writer, name string, cmd command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "%s\n\nUsage: sandboxdesk %s %s\n\nFlags:\n", cmd.summary, name, cmd.usage)
	rows := [][]string{}
	fs.VisitAll(func(f *flag.Flag) {
		rows = append(rows, []string{"  --" + f.Name, f.Usage})
	})
	printTable(w, rows)
}
