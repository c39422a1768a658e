package bubblewrap

import (
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// The host uids (and gids, the same numbers) a root controller gives its
// sandboxes, one each. The block is the 64K below systemd's "foreign UID
// range" (0x7FFE0000): above the 16-bit ids of ordinary and dynamic users,
// above the subordinate ranges useradd hands out for /etc/subuid (100000 to
// 600100000 by default), outside the container ranges systemd-nspawn picks
// from (524288 to 1879048191), and below 2^31, which some kernel code still
// takes for a signed number. The first id is kept for the user-namespace
// probe (Check) and never given to a sandbox.
const (
	uidBase  = 0x7FFD0000
	uidCount = 0x10000
)

// DefaultUIDRegistry is where a root controller records which host uid
// each sandbox of every root on this host holds: one registry per host,
// so two roots never give one uid to two sandboxes.
const DefaultUIDRegistry = "/var/lib/sandboxdesk/uids"

// uidRegistry hands out host uids. Each allocation is a file named by the
// uid whose content is the sandbox's folder; the folder keeps a copy
// (its "uid" file), so a sandbox gets back the uid that owns its files.
// The registry's folder is root's alone and locked while it changes.
type uidRegistry struct {
	dir         string
	first, last int // inclusive; first is the probe's
	taken       func(uid int) bool
}

func newUIDRegistry(dir string) *uidRegistry {
	return &uidRegistry{dir: dir, first: uidBase, last: uidBase + uidCount - 1, taken: knownToHost}
}

// probeUID is the uid the user-namespace probe runs as.
func (r *uidRegistry) probeUID() int { return r.first }

// knownToHost reports whether the host's user or group database (files,
// LDAP, systemd's synthesized users) already names the id.
func knownToHost(id int) bool {
	s := strconv.Itoa(id)
	_, uerr := user.LookupId(s)
	_, gerr := user.LookupGroupId(s)
	return uerr == nil || gerr == nil
}

// open opens the registry's folder, made root-only, and locks it.
func (r *uidRegistry) open() (*os.File, error) {
	if err := os.MkdirAll(r.dir, 0o700); err != nil {
		return nil, fmt.Errorf("host uid registry: %w", err)
	}
	fd, err := unix.Open(r.dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("host uid registry %s: %w", r.dir, err)
	}
	f := os.NewFile(uintptr(fd), r.dir)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Uid != 0 || st.Mode&0o022 != 0 {
		f.Close()
		return nil, fmt.Errorf("host uid registry %s: must be a folder only root can change", r.dir)
	}
	if err := unix.Flock(fd, unix.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock host uid registry: %w", err)
	}
	return f, nil
}

// entries reads the registry: uid -> sandbox folder. Allocations whose
// folder is gone (the sandbox, or its whole root, was deleted) are freed:
// no file of that uid is left anywhere a sandbox could reach.
func (r *uidRegistry) entries(dir *os.File) map[int]string {
	names, _ := dir.Readdirnames(-1)
	out := map[int]string{}
	for _, n := range names {
		uid, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		b, err := readNoFollow(dir, n)
		owner := strings.TrimSpace(string(b))
		if err == nil && owner == "" {
			// a controller killed between creating the entry and writing
			// it; under the lock nobody else is writing it now
			unix.Unlinkat(int(dir.Fd()), n, 0)
			continue
		}
		if err != nil {
			continue
		}
		if _, err := os.Lstat(owner); errors.Is(err, os.ErrNotExist) {
			unix.Unlinkat(int(dir.Fd()), n, 0)
			continue
		}
		out[uid] = owner
	}
	return out
}

// acquire returns the uid of the sandbox whose folder is stateDir: the one
// it held before when that is still its own, or a fresh one (whose
// folders prepare then hands over).
func (r *uidRegistry) acquire(stateDir string) (int, error) {
	dir, err := r.open()
	if err != nil {
		return 0, err
	}
	defer dir.Close()
	held := r.entries(dir)
	prev, hadPrev := readUIDFile(stateDir)
	if hadPrev && held[prev] == stateDir {
		return prev, nil
	}
	if hadPrev && prev > r.first && prev <= r.last && held[prev] == "" && !r.taken(prev) {
		// the registry lost it (a new host, a cleared /var): take it back
		return prev, r.record(dir, prev, stateDir)
	}
	for u, owner := range held {
		if owner == stateDir {
			return u, writeUIDFile(stateDir, u)
		}
	}
	if u := r.firstFree(held); u > 0 {
		if err := r.record(dir, u, stateDir); err != nil {
			return 0, err
		}
		return u, writeUIDFile(stateDir, u)
	}
	return 0, fmt.Errorf("no free host uid for a sandbox: all %d of %d-%d are taken", r.last-r.first, r.first+1, r.last)
}

// next returns the uid acquire would give a sandbox new to the registry
// now, or 0 when none is free.
func (r *uidRegistry) next() int {
	dir, err := r.open()
	if err != nil {
		return 0
	}
	defer dir.Close()
	return r.firstFree(r.entries(dir))
}

// firstFree is the lowest uid of the block that neither the registry
// (held) nor a user of the host has, or 0 when there is none.
func (r *uidRegistry) firstFree(held map[int]string) int {
	for u := r.first + 1; u <= r.last; u++ {
		if _, used := held[u]; !used && !r.taken(u) {
			return u
		}
	}
	return 0
}

func (r *uidRegistry) record(dir *os.File, uid int, stateDir string) error {
	fd, err := unix.Openat(int(dir.Fd()), strconv.Itoa(uid), unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return fmt.Errorf("record host uid %d: %w", uid, err)
	}
	_, err = unix.Write(fd, []byte(stateDir+"\n"))
	unix.Close(fd)
	if err != nil {
		return fmt.Errorf("record host uid %d: %w", uid, err)
	}
	return nil
}

// release frees the uid of the sandbox whose folder is stateDir.
func (r *uidRegistry) release(stateDir string) {
	dir, err := r.open()
	if err != nil {
		return
	}
	defer dir.Close()
	for u, owner := range r.entries(dir) {
		if owner == stateDir {
			unix.Unlinkat(int(dir.Fd()), strconv.Itoa(u), 0)
		}
	}
}

func uidFilePath(stateDir string) string { return filepath.Join(stateDir, "uid") }

func readUIDFile(stateDir string) (int, bool) {
	b, err := readFileNoFollow(uidFilePath(stateDir))
	if err != nil {
		return 0, false
	}
	uid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	return uid, err == nil
}

func writeUIDFile(stateDir string, uid int) error {
	return replaceFile(uidFilePath(stateDir), []byte(strconv.Itoa(uid)+"\n"), 0o644)
}
