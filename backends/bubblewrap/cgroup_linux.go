package bubblewrap

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"sandboxdesk/host"
)

// cgroup is a sandbox's own cgroup: one folder in the unified hierarchy,
// or one per controller on a v1 host.
type cgroup struct {
	v2     string // folder in the unified hierarchy
	memory string // v1 memory folder
	cpu    string // v1 cpu folder
	pids   string // v1 pids folder
}

// limits is what a cgroup could enforce.
type limits struct {
	memoryMiB int64 // 0: not enforced
	cpus      int   // 0: not enforced
	pids      int64 // 0: not enforced
}

// makeCgroup creates the sandbox's cgroup under this process's own and
// sets its limits. Whatever cannot be made or set is left unenforced, and
// the reason comes back for the sandbox's events; a host without usable
// cgroups still runs sandboxes. The sandbox joins it before it drops to
// its own user (as root) or as the user itself.
func makeCgroup(id string, memoryMiB int64, cpus int, pids int64) (*cgroup, limits, error) {
	own := host.OwnCgroups()
	name := "sandboxdesk-" + id
	cg := &cgroup{}
	var got limits
	var errs []error
	if own.V2 != "" && hasController(own.V2, "memory") {
		dir := filepath.Join(own.V2, name)
		if err := os.Mkdir(dir, 0o755); err != nil && !os.IsExist(err) {
			errs = append(errs, fmt.Errorf("cgroup v2: %w", err))
		} else {
			cg.v2 = dir
			if write(dir, "memory.max", strconv.FormatInt(memoryMiB<<20, 10)) == nil {
				write(dir, "memory.swap.max", "0")
				got.memoryMiB = memoryMiB
			}
			if cpus > 0 && write(dir, "cpu.max", strconv.Itoa(cpus*100000)+" 100000") == nil {
				got.cpus = cpus
			}
			if pids > 0 && write(dir, "pids.max", strconv.FormatInt(pids, 10)) == nil {
				got.pids = pids
			}
		}
	}
	if cg.v2 == "" {
		if dir, ok := own.V1["memory"]; ok {
			d := filepath.Join(dir, name)
			if err := os.Mkdir(d, 0o755); err != nil && !os.IsExist(err) {
				errs = append(errs, fmt.Errorf("cgroup v1 memory: %w", err))
			} else {
				cg.memory = d
				if write(d, "memory.limit_in_bytes", strconv.FormatInt(memoryMiB<<20, 10)) == nil {
					write(d, "memory.memsw.limit_in_bytes", strconv.FormatInt(memoryMiB<<20, 10))
					got.memoryMiB = memoryMiB
				}
			}
		}
		if dir, ok := own.V1["cpu"]; ok && cpus > 0 {
			d := filepath.Join(dir, name)
			if err := os.Mkdir(d, 0o755); err == nil || os.IsExist(err) {
				cg.cpu = d
				if write(d, "cpu.cfs_period_us", "100000") == nil && write(d, "cpu.cfs_quota_us", strconv.Itoa(cpus*100000)) == nil {
					got.cpus = cpus
				}
			}
		}
		if dir, ok := own.V1["pids"]; ok && pids > 0 {
			d := filepath.Join(dir, name)
			if err := os.Mkdir(d, 0o755); err != nil && !os.IsExist(err) {
				errs = append(errs, fmt.Errorf("cgroup v1 pids: %w", err))
			} else {
				cg.pids = d
				if write(d, "pids.max", strconv.FormatInt(pids, 10)) == nil {
					got.pids = pids
				}
			}
		}
	}
	if got.memoryMiB == 0 && len(errs) == 0 {
		errs = append(errs, errors.New("no cgroup with a memory controller this user may write"))
	}
	return cg, got, errors.Join(errs...)
}

func hasController(dir, ctl string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.controllers"))
	return err == nil && strings.Contains(" "+strings.TrimSpace(string(b))+" ", " "+ctl+" ")
}

func write(dir, file, value string) error {
	return os.WriteFile(filepath.Join(dir, file), []byte(value), 0o644)
}

// joinFiles are the files a process writes "0" to to join the cgroup
// itself: the unified hierarchy's cgroup.procs, and each v1 folder's
// tasks, which moves only the writing thread. That thread then runs bwrap
// (execve leaves no other), so all the sandbox is inside all the same.
// On a recent kernel (6.18 here) a thread that moves itself needs no
// global lock, where a write of a pid takes cgroup_threadgroup_rwsem, the
// lock of every fork and exit on the host, for writing, and mostly waits
// out an RCU grace period first: 4 to 14 ms of each start, measured. An
// older kernel takes the lock either way.
func (c *cgroup) joinFiles() []string {
	var out []string
	if c.v2 != "" {
		out = append(out, filepath.Join(c.v2, "cgroup.procs"))
	}
	for _, d := range []string{c.memory, c.cpu, c.pids} {
		if d != "" {
			out = append(out, filepath.Join(d, "tasks"))
		}
	}
	return out
}

// ooms is how many processes the kernel has killed in the cgroup for
// want of memory.
func (c *cgroup) ooms() int {
	var file, key string
	switch {
	case c.v2 != "":
		file, key = filepath.Join(c.v2, "memory.events"), "oom_kill"
	case c.memory != "":
		file, key = filepath.Join(c.memory, "memory.oom_control"), "oom_kill"
	default:
		return 0
	}
	return countIn(file, key)
}

// countIn reads the count of key from a cgroup's "key N" lines.
func countIn(file, key string) int {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == key {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	return 0
}

// dirs are the cgroup's folders, "" for those it has not.
func (c *cgroup) dirs() []string { return []string{c.v2, c.memory, c.cpu, c.pids} }

// pidsHits is how many forks the pids limit has refused: the "max" count
// of pids.events, which cgroup v2 and v1 (since Linux 4.3) both keep.
func (c *cgroup) pidsHits() int {
	dir := c.v2
	if dir == "" {
		dir = c.pids
	}
	if dir == "" {
		return 0
	}
	return countIn(filepath.Join(dir, "pids.events"), "max")
}

// current is how many processes and threads the cgroup holds now.
func (c *cgroup) current() int {
	dir := c.v2
	if dir == "" {
		dir = c.pids
	}
	b, err := os.ReadFile(filepath.Join(dir, "pids.current"))
	if dir == "" || err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}

// memoryLimitMiB reads back the memory limit the cgroup enforces; 0 when
// none is (no cgroup, or "max").
func (c *cgroup) memoryLimitMiB() int64 {
	var file string
	switch {
	case c.v2 != "":
		file = filepath.Join(c.v2, "memory.max")
	case c.memory != "":
		file = filepath.Join(c.memory, "memory.limit_in_bytes")
	default:
		return 0
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return 0
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || n <= 0 || n >= 1<<62 {
		return 0
	}
	return n >> 20
}

// remove kills whatever is still in the cgroup and deletes its folders.
func (c *cgroup) remove() {
	for _, d := range c.dirs() {
		if d == "" {
			continue
		}
		for i := 0; i < 50; i++ {
			if err := os.Remove(d); err == nil || os.IsNotExist(err) {
				break
			}
			killAll(filepath.Join(d, "cgroup.procs"))
			time.Sleep(20 * time.Millisecond)
		}
	}
}

func killAll(procs string) {
	b, _ := os.ReadFile(procs)
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// findCgroup finds the cgroup folders of a sandbox made earlier (by this
// process or one before it).
func findCgroup(id string) *cgroup {
	own := host.OwnCgroups()
	name := "sandboxdesk-" + id
	cg := &cgroup{}
	exists := func(d string) string {
		if _, err := os.Stat(d); err == nil {
			return d
		}
		return ""
	}
	if own.V2 != "" {
		cg.v2 = exists(filepath.Join(own.V2, name))
	}
	if d, ok := own.V1["memory"]; ok {
		cg.memory = exists(filepath.Join(d, name))
	}
	if d, ok := own.V1["cpu"]; ok {
		cg.cpu = exists(filepath.Join(d, name))
	}
	if d, ok := own.V1["pids"]; ok {
		cg.pids = exists(filepath.Join(d, name))
	}
	return cg
}

// hostPidSpace reads how many pids and threads the host hands out.
func hostPidSpace() (pidMax, threadsMax int64) {
	read := func(name string) int64 {
		b, err := os.ReadFile("/proc/sys/kernel/" + name)
		if err != nil {
			return 0
		}
		n, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		return n
	}
	return read("pid_max"), read("threads-max")
}

// pidsLimit reads back the process limit the cgroup enforces; 0 when none
// is (no pids cgroup, or "max").
func (c *cgroup) pidsLimit() int64 {
	dir := c.v2
	if dir == "" {
		dir = c.pids
	}
	if dir == "" {
		return 0
	}
	b, err := os.ReadFile(filepath.Join(dir, "pids.max"))
	if err != nil {
		return 0
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || n <= 0 {
		return 0
	}
	return n
}
