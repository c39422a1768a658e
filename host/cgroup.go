package host

import (
	"bufio"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// cgroupCores returns how many cores the cgroups of this process allow, and
// whether any limit applies. It understands cgroup v2 (cpu.max,
// cpuset.cpus.effective), cgroup v1 (cpu.cfs_quota_us over cpu.cfs_period_us,
// cpuset.cpus) and hybrid hosts that mount both. A quota is looked up along
// the whole path from the process's cgroup to the mount's root, because a
// parent's quota binds its children as well.
//
// fsRoot is prepended to every path read, so tests can point it at a fake
// tree; in production it is "/".
func cgroupCores(fsRoot string) (float64, bool) {
	memberships := readMemberships(filepath.Join(fsRoot, "proc/self/cgroup"))
	mounts := readCgroupMounts(filepath.Join(fsRoot, "proc/self/mountinfo"))
	best, found := math.Inf(1), false
	consider := func(v float64, ok bool) {
		if ok && v > 0 && v < best {
			best, found = v, true
		}
	}
	for _, m := range mounts {
		path, ok := memberOf(memberships, m)
		if !ok {
			continue
		}
		dir := cgroupDir(fsRoot, m, path)
		top := filepath.Join(fsRoot, m.point)
		if m.v2 {
			consider(walkUp(dir, top, readCPUMax))
			consider(cpusetCount(filepath.Join(dir, "cpuset.cpus.effective")))
			continue
		}
		if m.controllers["cpu"] {
			consider(walkUp(dir, top, readCFSQuota))
		}
		if m.controllers["cpuset"] {
			v, ok := cpusetCount(filepath.Join(dir, "cpuset.effective_cpus"))
			if !ok {
				v, ok = cpusetCount(filepath.Join(dir, "cpuset.cpus"))
			}
			consider(v, ok)
		}
	}
	return best, found
}

// membership is one line of /proc/self/cgroup: "ID:controllers:path".
type membership struct {
	controllers map[string]bool
	path        string
	v2          bool
}

func readMemberships(file string) []membership {
	var out []membership
	eachLine(file, func(line string) {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			return
		}
		m := membership{path: parts[2], controllers: map[string]bool{}}
		if parts[0] == "0" && parts[1] == "" {
			m.v2 = true
		}
		for _, c := range strings.Split(parts[1], ",") {
			m.controllers[c] = true
		}
		out = append(out, m)
	})
	return out
}

// cgroupMount is a cgroup file system in /proc/self/mountinfo.
type cgroupMount struct {
	root, point string // the cgroup path mounted, and where
	controllers map[string]bool
	v2          bool
}

func readCgroupMounts(file string) []cgroupMount {
	var out []cgroupMount
	eachLine(file, func(line string) {
		// id parent major:minor root point options [optional...] - fstype source superoptions
		pre, post, ok := strings.Cut(line, " - ")
		if !ok {
			return
		}
		f, g := strings.Fields(pre), strings.Fields(post)
		if len(f) < 5 || len(g) < 3 {
			return
		}
		m := cgroupMount{root: unescape(f[3]), point: unescape(f[4]), controllers: map[string]bool{}}
		switch g[0] {
		case "cgroup2":
			m.v2 = true
		case "cgroup":
			for _, opt := range strings.Split(g[2], ",") {
				m.controllers[opt] = true
			}
		default:
			return
		}
		out = append(out, m)
	})
	return out
}

// memberOf finds this process's cgroup path in the hierarchy mounted by m.
func memberOf(ms []membership, m cgroupMount) (string, bool) {
	for _, mem := range ms {
		if m.v2 && mem.v2 {
			return mem.path, true
		}
		if !m.v2 && !mem.v2 && (mem.controllers["cpu"] && m.controllers["cpu"] || mem.controllers["cpuset"] && m.controllers["cpuset"]) {
			return mem.path, true
		}
	}
	return "", false
}

// cgroupDir is where the process's cgroup appears under the mount. Inside a
// container without a cgroup namespace the path may not be visible; then
// the mount's own root is the closest limit there is to read.
func cgroupDir(fsRoot string, m cgroupMount, path string) string {
	rel, err := filepath.Rel(m.root, path)
	if err != nil || strings.HasPrefix(rel, "..") {
		rel = "."
	}
	dir := filepath.Join(fsRoot, m.point, rel)
	if _, err := os.Stat(dir); err != nil {
		return filepath.Join(fsRoot, m.point)
	}
	return dir
}

// walkUp applies read to dir and each parent up to top, keeping the
// smallest limit found.
func walkUp(dir, top string, read func(string) (float64, bool)) (float64, bool) {
	best, found := math.Inf(1), false
	for {
		if v, ok := read(dir); ok && v < best {
			best, found = v, true
		}
		if dir == top || !strings.HasPrefix(dir, top) {
			return best, found
		}
		dir = filepath.Dir(dir)
	}
}

// readCPUMax reads cgroup v2 "cpu.max": "max 100000" or "200000 100000".
func readCPUMax(dir string) (float64, bool) {
	b, err := os.ReadFile(filepath.Join(dir, "cpu.max"))
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) != 2 || f[0] == "max" {
		return 0, false
	}
	return ratio(f[0], f[1])
}

// readCFSQuota reads cgroup v1's quota and period; a quota of -1 is none.
func readCFSQuota(dir string) (float64, bool) {
	q, err1 := os.ReadFile(filepath.Join(dir, "cpu.cfs_quota_us"))
	p, err2 := os.ReadFile(filepath.Join(dir, "cpu.cfs_period_us"))
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return ratio(strings.TrimSpace(string(q)), strings.TrimSpace(string(p)))
}

func ratio(quota, period string) (float64, bool) {
	q, err1 := strconv.ParseInt(quota, 10, 64)
	p, err2 := strconv.ParseInt(period, 10, 64)
	if err1 != nil || err2 != nil || q <= 0 || p <= 0 {
		return 0, false
	}
	return float64(q) / float64(p), true
}

// cpusetCount counts the CPUs in a list such as "0-3,6,8-9".
func cpusetCount(file string) (float64, bool) {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0, false
	}
	n := 0
	for _, part := range strings.Split(strings.TrimSpace(string(b)), ",") {
		if part == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return 0, false
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return 0, false
			}
		}
		n += b - a + 1
	}
	return float64(n), n > 0
}

// unescape undoes mountinfo's octal escapes for space, tab, newline and
// backslash.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	r := strings.NewReplacer(`\040`, " ", `\011`, "\t", `\012`, "\n", `\134`, `\`)
	return r.Replace(s)
}

func eachLine(file string, fn func(string)) {
	f, err := os.Open(file)
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fn(sc.Text())
	}
}

// Cgroups are the cgroup folders this process belongs to, for a caller
// that wants to make child cgroups of its own (a sandbox's memory limit).
type Cgroups struct {
	// V2 is the folder in the unified hierarchy, "" when there is none.
	V2 string
	// V1 maps each v1 controller ("memory", "cpu") to its folder.
	V1 map[string]string
}

// OwnCgroups finds this process's cgroup folders.
func OwnCgroups() Cgroups { return ownCgroups("/") }

func ownCgroups(fsRoot string) Cgroups {
	out := Cgroups{V1: map[string]string{}}
	memberships := readMemberships(filepath.Join(fsRoot, "proc/self/cgroup"))
	for _, m := range readCgroupMounts(filepath.Join(fsRoot, "proc/self/mountinfo")) {
		for _, mem := range memberships {
			switch {
			case m.v2 && mem.v2:
				out.V2 = cgroupDir(fsRoot, m, mem.path)
			case !m.v2 && !mem.v2:
				for ctl := range mem.controllers {
					if ctl != "" && m.controllers[ctl] {
						out.V1[ctl] = cgroupDir(fsRoot, m, mem.path)
					}
				}
			}
		}
	}
	return out
}
