package main

import (
	"strconv"
	"strings"
)

// numeric is the release a version string names, as the numbers Windows
// (FILEVERSION, four 16-bit parts) and macOS (CFBundleVersion, three
// integers) want: v1.2.3 is 1.2.3 with 0 commits after it, v1.2.3-4-gabc
// (git describe between tags) is 1.2.3 and 4 commits, and a version with
// no release in it (a bare commit, "dev") is 0.0.0, so a build from a
// checkout never claims to be a release.
type numeric struct{ major, minor, patch, commits int }

func parseVersion(v string) numeric {
	v = strings.TrimPrefix(v, "v")
	release, rest, _ := strings.Cut(v, "-")
	parts := strings.Split(release, ".")
	if len(parts) > 3 {
		return numeric{}
	}
	var n [3]int
	for i, p := range parts {
		x, err := strconv.Atoi(p)
		if err != nil || x < 0 || x > 0xffff {
			return numeric{}
		}
		n[i] = x
	}
	out := numeric{major: n[0], minor: n[1], patch: n[2]}
	// git describe: TAG-COUNT-gHASH[-dirty]; a pre-release (-rc1) has no count
	if fields := strings.Split(rest, "-"); len(fields) >= 2 && strings.HasPrefix(fields[1], "g") {
		if c, err := strconv.Atoi(fields[0]); err == nil && c >= 0 && c <= 0xffff {
			out.commits = c
		}
	}
	return out
}

// short is macOS's CFBundleShortVersionString and CFBundleVersion: the
// release alone.
func (n numeric) short() string {
	return strconv.Itoa(n.major) + "." + strconv.Itoa(n.minor) + "." + strconv.Itoa(n.patch)
}

// windows is the four numbers Windows shows as the file version, joined
// by sep ("," in a resource script, "." for NSIS).
func (n numeric) windows(sep string) string {
	return strings.Join([]string{strconv.Itoa(n.major), strconv.Itoa(n.minor), strconv.Itoa(n.patch), strconv.Itoa(n.commits)}, sep)
}
