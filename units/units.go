// Package units parses and prints the sizes and durations that people type
// and read: "512MiB", "14.4GiB", "90s". Every part of sandboxdesk that takes
// a size or a duration from a person (CLI flags, the Add Sandbox dialog,
// Settings) goes through here, so "2GiB" means the same thing everywhere.
//
// Sizes use IEC units only (KiB, MiB, GiB, TiB, and B for bytes); a bare
// number is MiB, because memory and disk are thought of in MiB. Decimal SI
// units such as "GB" are refused rather than guessed at: 2 GB and 2 GiB
// differ by 7%, which is enough to change a sandbox's memory share.
package units

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// Size is a number of bytes.
type Size int64

// The IEC multiples.
const (
	B   Size = 1
	KiB      = 1024 * B
	MiB      = 1024 * KiB
	GiB      = 1024 * MiB
	TiB      = 1024 * GiB
)

// ErrSyntax matches every parse error (errors.Is), so callers can tell bad
// input from other failures.
var ErrSyntax = errors.New("invalid value")

// syntaxError says what is wrong without repeating the input: the caller
// knows which field or flag it came from and names it.
type syntaxError struct{ msg string }

func (e *syntaxError) Error() string        { return e.msg }
func (e *syntaxError) Is(target error) bool { return target == ErrSyntax }

func syntaxErrorf(format string, args ...any) error {
	return &syntaxError{fmt.Sprintf(format, args...)}
}

var suffixes = []struct {
	name string
	mult Size
}{
	{"tib", TiB}, {"gib", GiB}, {"mib", MiB}, {"kib", KiB}, {"b", B},
}

// maxFraction bounds the digits after the point: more than this says
// nothing a byte count can hold and only costs time.
const maxFraction = 12

// ParseSize reads a size such as "512MiB", "2 GiB", "14.4GiB" or "1024"
// (a bare number is MiB). Units are case-insensitive. The result is rounded
// down to whole bytes. Negative sizes, SI units and anything that is not a
// plain decimal number are errors.
func ParseSize(s string) (Size, error) {
	in := strings.TrimSpace(s)
	if in == "" {
		return 0, syntaxErrorf("empty size (try 512MiB or 2GiB)")
	}
	if strings.HasPrefix(in, "-") {
		return 0, syntaxErrorf("a size cannot be negative")
	}
	num, mult, err := splitUnit(in)
	if err != nil {
		return 0, err
	}
	if err := checkDecimal(num); err != nil {
		return 0, err
	}
	r, ok := new(big.Rat).SetString(num)
	if !ok {
		return 0, syntaxErrorf("not a size (try 512MiB or 2GiB)")
	}
	r.Mul(r, new(big.Rat).SetInt64(int64(mult)))
	bytes := new(big.Int).Quo(r.Num(), r.Denom())
	if !bytes.IsInt64() {
		return 0, syntaxErrorf("too large")
	}
	return Size(bytes.Int64()), nil
}

// splitUnit separates the number from its unit; no unit means MiB.
func splitUnit(in string) (string, Size, error) {
	i := strings.LastIndexAny(in, "0123456789.")
	if i < 0 {
		return "", 0, syntaxErrorf("not a size (try 512MiB or 2GiB)")
	}
	num, unit := in[:i+1], strings.TrimSpace(in[i+1:])
	if unit == "" {
		return num, MiB, nil
	}
	lower := strings.ToLower(unit)
	for _, suf := range suffixes {
		if lower == suf.name {
			return num, suf.mult, nil
		}
	}
	return "", 0, syntaxErrorf("unknown unit %q (use B, KiB, MiB, GiB or TiB)", unit)
}

// checkDecimal accepts digits with at most one point and at least one digit:
// no signs, exponents, fractions, hex or "inf".
func checkDecimal(num string) error {
	digits, points, fraction := 0, 0, 0
	for _, c := range num {
		switch {
		case c >= '0' && c <= '9':
			digits++
			if points > 0 {
				fraction++
			}
		case c == '.':
			points++
		default:
			return syntaxErrorf("not a size (try 512MiB or 2GiB)")
		}
	}
	switch {
	case digits == 0 || points > 1:
		return syntaxErrorf("not a size (try 512MiB or 2GiB)")
	case fraction > maxFraction:
		return syntaxErrorf("more than %d digits after the point", maxFraction)
	}
	return nil
}

// MiB returns the size in whole MiB, rounded down.
func (s Size) MiB() int64 { return int64(s / MiB) }

// String prints the size in the largest unit that keeps it readable:
// "8 GiB", "512 MiB", "14.4 GiB". It rounds to one decimal place, so it is
// for people; use ParseSize(s.Exact()) when the value must survive.
func (s Size) String() string {
	if s < 0 {
		return "-" + (-s).String()
	}
	for _, u := range []struct {
		name string
		mult Size
	}{{"TiB", TiB}, {"GiB", GiB}, {"MiB", MiB}, {"KiB", KiB}} {
		if s >= u.mult {
			return trimmed(float64(s)/float64(u.mult)) + " " + u.name
		}
	}
	return strconv.FormatInt(int64(s), 10) + " B"
}

// trimmed formats v with at most one decimal, dropping a trailing ".0".
func trimmed(v float64) string {
	t := strconv.FormatFloat(v, 'f', 1, 64)
	return strings.TrimSuffix(t, ".0")
}

// Exact prints the size so that ParseSize reads back the same number of
// bytes: whole MiB as "NMiB", anything else in bytes.
func (s Size) Exact() string {
	if s%MiB == 0 {
		return strconv.FormatInt(int64(s/MiB), 10) + "MiB"
	}
	return strconv.FormatInt(int64(s), 10) + "B"
}

// FormatMiB prints a MiB count the way String prints a Size.
func FormatMiB(mib int64) string {
	// a count of MiB too large (or small) for a byte Size would wrap, and a
	// refusal would then quote a value the client never sent
	if mib == 0 || mib > math.MaxInt64/int64(MiB) || mib < math.MinInt64/int64(MiB) {
		return strconv.FormatInt(mib, 10) + " MiB"
	}
	return (Size(mib) * MiB).String()
}

// ParseDuration reads a Go duration ("90s", "10m", "1h30m"). Negative
// durations are errors; "0" is allowed and means whatever the field says
// zero means (usually "none").
func ParseDuration(s string) (time.Duration, error) {
	in := strings.TrimSpace(s)
	if in == "" {
		return 0, syntaxErrorf("empty duration (try 90s or 10m)")
	}
	d, err := time.ParseDuration(in)
	if err != nil {
		return 0, syntaxErrorf("not a duration (try 90s, 10m or 1h30m)")
	}
	if d < 0 {
		return 0, syntaxErrorf("a duration cannot be negative")
	}
	return d, nil
}

// Age prints a duration as a person glances at it in a list: "now",
// "5 min", "3 h", "2 d".
func Age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "now"
	case d < time.Hour:
		return strconv.Itoa(int(d/time.Minute)) + " min"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d/time.Hour)) + " h"
	}
	return strconv.Itoa(int(d/(24*time.Hour))) + " d"
}
