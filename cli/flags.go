package cli

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"sandboxdesk/units"
)

// parseArgs reads flags and positional arguments in any order, as people
// type them ("create w --memory 2GiB" as well as "create --memory 2GiB w").
// Everything after "--" is positional, untouched. Flags may be written with
// one or two dashes, and their values after "=" or as the next argument;
// the next argument is taken even if it starts with a dash, so
// "--active -3" reaches the flag and is refused there with a clear reason.
//
// With stopAfter > 0, once that many positional arguments are read, the
// next argument that is not a flag starts a command line of its own
// (exec's): it and everything after it are positional, flags included.
func parseArgs(fs *flag.FlagSet, args []string, stopAfter int) ([]string, error) {
	var positional []string
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			return append(positional, args[i+1:]...), nil
		}
		if stopAfter > 0 && len(positional) == stopAfter && !strings.HasPrefix(arg, "-") {
			return append(positional, args[i:]...), nil
		}
		if len(arg) < 2 || arg[0] != '-' {
			positional = append(positional, arg)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		f := fs.Lookup(name)
		if f == nil || name == "" {
			return nil, usagef("unknown flag %s (see 'sandboxdesk help %s')", arg, fs.Name())
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() && !hasValue {
			value, hasValue = "true", true
		}
		if !hasValue {
			if i+1 >= len(args) {
				return nil, usagef("--%s needs a value", name)
			}
			i++
			value = args[i]
		}
		if err := fs.Set(name, value); err != nil {
			return nil, usagef("--%s %q: %v", name, value, err)
		}
	}
	return positional, nil
}

// sizeFlag is a size typed by a person, with a smallest allowed value.
type sizeFlag struct {
	size units.Size
	min  units.Size
	set  bool
}

func (f *sizeFlag) String() string {
	if !f.set {
		return ""
	}
	return f.size.String()
}

func (f *sizeFlag) Set(s string) error {
	v, err := units.ParseSize(s)
	if err != nil {
		return err
	}
	if v < f.min {
		if f.min == 1 {
			return errors.New("must be more than 0")
		}
		return fmt.Errorf("must be at least %s", f.min)
	}
	f.size, f.set = v, true
	return nil
}

// countFlag is a whole number with a smallest allowed value.
type countFlag struct {
	n   int
	min int
	set bool
}

func (f *countFlag) String() string {
	if !f.set {
		return ""
	}
	return strconv.Itoa(f.n)
}

func (f *countFlag) Set(s string) error {
	v, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return errors.New("not a whole number")
	}
	if v < f.min {
		return fmt.Errorf("must be %d or more", f.min)
	}
	f.n, f.set = v, true
	return nil
}

// rootFlag is --root: a folder, never empty. An empty value is a script's
// unset variable, and taking it for "the default root" would run against
// the person's own sandboxes.
type rootFlag string

func (f *rootFlag) String() string { return string(*f) }

func (f *rootFlag) Set(s string) error {
	if strings.TrimSpace(s) == "" {
		return errors.New("is empty: give a folder, or leave --root out for the default")
	}
	*f = rootFlag(s)
	return nil
}

// envFlag is exec's repeatable --env KEY=VALUE.
type envFlag []string

func (m *envFlag) String() string { return strings.Join(*m, ",") }

func (m *envFlag) Set(s string) error {
	if k, _, ok := strings.Cut(s, "="); !ok || k == "" {
		return errors.New("not KEY=VALUE")
	}
	*m = append(*m, s)
	return nil
}
