package controller

import (
	"context"
	"fmt"
	"strings"
	"time"

	"sandboxdesk/backends"
	"sandboxdesk/ipc"
	"sandboxdesk/rules"
	"sandboxdesk/units"
)

// shape is what a caller asks of a sandbox, validated. Zero means unset:
// a capacity any sandbox meets, a ceiling of none.
type shape struct {
	Backend string
	Image   backends.Image
	Network backends.Network
	// NestedUserns: user namespaces inside the sandbox are allowed.
	NestedUserns bool

	// capacities: meet-or-exceed
	MemoryMiB int64
	CPUs      int
	DiskMiB   int64
	Pids      int64
	// ceilings: meet-or-undercut
	IdleTimeout time.Duration
	MaxLifetime time.Duration

	StopGrace time.Duration
}

// DefaultStopGrace is how long stop waits after asking politely.
const DefaultStopGrace = 10 * time.Second

const (
	maxStopGrace = time.Hour
	maxCeiling   = 10 * 365 * 24 * time.Hour
)

// maxFullName keeps PREFIX-NAME a valid hostname label.
const maxFullName = 63

// fullName checks a prefix and a name and joins them.
func fullName(prefix, name string) (string, error) {
	if err := ipc.CheckName("name", name); err != nil {
		return "", err
	}
	if prefix == "" {
		return name, nil
	}
	if err := ipc.CheckName("prefix", prefix); err != nil {
		return "", err
	}
	full := prefix + "-" + name
	if len(full) > maxFullName {
		return "", ipc.Errorf(ipc.ErrInvalid, "%q is too long with its prefix: %d characters, at most %d", full, len(full), maxFullName)
	}
	return full, nil
}

// validate turns a request into a shape, or says what is wrong with it.
// It writes nothing.
func (c *Controller) validate(ctx context.Context, req ipc.CreateRequest) (shape, error) {
	var s shape
	s.Backend = req.Backend
	if s.Backend == "" {
		s.Backend = c.defBack
	}
	b, ok := c.backends[s.Backend]
	if !ok {
		return shape{}, ipc.Errorf(ipc.ErrInvalid, "unknown backend %q (this build has %s)", req.Backend, strings.Join(c.backendNames(), ", "))
	}
	caps := b.Capabilities()
	img, err := c.findImage(ctx, b, req.Image)
	if err != nil {
		return shape{}, err
	}
	s.Image = img
	s.NestedUserns = req.NestedUserns
	if s.Network, err = backends.ParseNetwork(req.Network); err != nil {
		return shape{}, ipc.Errorf(ipc.ErrInvalid, "%v", err)
	}
	rng, err := rules.RangesFor(caps.Kind)
	if err != nil {
		return shape{}, err
	}
	if req.MemoryMiB != nil {
		if err := rng.CheckMemoryMiB(*req.MemoryMiB); err != nil {
			return shape{}, ipc.Errorf(ipc.ErrInvalid, "%v for a %s sandbox, got %s", err, kindWord(caps.Kind), sizeWord(*req.MemoryMiB))
		}
		s.MemoryMiB = *req.MemoryMiB
	}
	if req.CPUs != nil {
		if err := rng.CheckCPUs(int64(*req.CPUs)); err != nil {
			return shape{}, ipc.Errorf(ipc.ErrInvalid, "%v, got %d", err, *req.CPUs)
		}
		s.CPUs = *req.CPUs
	}
	if req.DiskMiB != nil {
		if err := rng.CheckDiskMiB(*req.DiskMiB); err != nil {
			return shape{}, ipc.Errorf(ipc.ErrInvalid, "%v, got %s", err, sizeWord(*req.DiskMiB))
		}
		s.DiskMiB = *req.DiskMiB
	}
	if req.Pids != nil {
		if *req.Pids < MinPids || *req.Pids > MaxPids {
			return shape{}, ipc.Errorf(ipc.ErrInvalid, "process limit must be %d to %d, got %d", MinPids, MaxPids, *req.Pids)
		}
		s.Pids = *req.Pids
	}
	if s.IdleTimeout, err = ceiling("idle timeout", req.IdleTimeoutMs); err != nil {
		return shape{}, err
	}
	if s.MaxLifetime, err = ceiling("max lifetime", req.MaxLifetimeMs); err != nil {
		return shape{}, err
	}
	s.StopGrace = DefaultStopGrace
	if req.StopGraceMs != nil {
		g := time.Duration(*req.StopGraceMs) * time.Millisecond
		if *req.StopGraceMs < 0 || g > maxStopGrace {
			return shape{}, ipc.Errorf(ipc.ErrInvalid, "stop grace must be 0 to %v, got %dms", maxStopGrace, *req.StopGraceMs)
		}
		s.StopGrace = g
	}
	return s, nil
}

func ceiling(what string, ms *int64) (time.Duration, error) {
	if ms == nil {
		return 0, nil
	}
	if *ms <= 0 || *ms > maxCeiling.Milliseconds() {
		return 0, ipc.Errorf(ipc.ErrInvalid, "%s must be more than 0 and at most 10 years (leave it unset for none), got %dms", what, *ms)
	}
	return time.Duration(*ms) * time.Millisecond, nil
}

func sizeWord(mib int64) string {
	if mib <= 0 {
		return fmt.Sprintf("%d MiB", mib)
	}
	return units.FormatMiB(mib)
}

func kindWord(k backends.Kind) string {
	if k == backends.KindVM {
		return "VM"
	}
	return "host-process"
}

func (c *Controller) backendNames() []string {
	var out []string
	for n := range c.backends {
		out = append(out, n)
	}
	return sortedCopy(out)
}

// findImage resolves an image name ("" for the backend's default).
func (c *Controller) findImage(ctx context.Context, b Backend, name string) (backends.Image, error) {
	if name == "" {
		name = b.Capabilities().DefaultImage
	}
	images, err := b.Images(ctx)
	if err != nil {
		return backends.Image{}, ipc.Errorf(ipc.ErrUnavailable, "list images: %w", err)
	}
	var have []string
	for _, img := range images {
		if img.Name == name {
			return img, nil
		}
		have = append(have, img.Name)
	}
	held := "none yet"
	if len(have) > 0 {
		held = strings.Join(sortedCopy(have), ", ")
	}
	// an import makes a root file system for the default backend, never a
	// VM's kernel and initrd: a VM image is built or pulled
	how := "import one with 'sandboxdesk images import'"
	if b.Capabilities().Kind == backends.KindVM {
		how = "build one with 'make guest-image' or pull one with 'sandboxdesk images pull'"
	}
	return backends.Image{}, ipc.Errorf(ipc.ErrInvalid, "unknown image %q (have %s; %s)", name, held, how)
}

// serves applies the reuse rule: capacities meet-or-exceed, ceilings
// meet-or-undercut, identity equal, and not already older than the asked
// max lifetime. Capacities compare with h, what r really holds (heldBy).
// It returns why not, for the log and the event.
func serves(r *record, s shape, now time.Time, h held) (bool, string) {
	switch {
	case r.Backend != s.Backend:
		return false, fmt.Sprintf("backend %s, asked %s", r.Backend, s.Backend)
	case r.Image != s.Image.Name || r.ImageDigest != s.Image.Digest:
		return false, fmt.Sprintf("image %s, asked %s", imageWord(r.Image, r.ImageDigest), imageWord(s.Image.Name, s.Image.Digest))
	case r.Network != s.Network:
		return false, fmt.Sprintf("network %s, asked %s", r.Network, s.Network)
	case r.NestedUserns != s.NestedUserns:
		return false, fmt.Sprintf("nested user namespaces %s, asked %s", onOff(r.NestedUserns), onOff(s.NestedUserns))
	}
	mem, cpus, disk := h.memoryMiB, h.cpus, h.diskMiB
	// a running sandbox holds the limit its backend enforces; a stopped one
	// on the default gets the backend's default, which the controller
	// cannot know ahead: it serves no ask
	pids := pick(r.Pids, r.PidsLimit)
	switch {
	case s.MemoryMiB > 0 && mem < s.MemoryMiB:
		return false, fmt.Sprintf("holds %s memory, asked %s", sizeWord(mem), sizeWord(s.MemoryMiB))
	case s.CPUs > 0 && cpus < s.CPUs:
		return false, fmt.Sprintf("has %d CPUs, asked %d", cpus, s.CPUs)
	case s.DiskMiB > 0 && disk < s.DiskMiB:
		return false, fmt.Sprintf("has %s disk, asked %s", sizeWord(disk), sizeWord(s.DiskMiB))
	case s.Pids > 0 && pids < s.Pids:
		return false, fmt.Sprintf("has a limit of %s processes, asked %d", pidsWord(pids), s.Pids)
	case s.IdleTimeout > 0 && (r.IdleTimeout == 0 || r.IdleTimeout > s.IdleTimeout):
		return false, fmt.Sprintf("idle timeout %s, asked %v", durWord(r.IdleTimeout), s.IdleTimeout)
	case s.MaxLifetime > 0 && (r.MaxLifetime == 0 || r.MaxLifetime > s.MaxLifetime):
		return false, fmt.Sprintf("max lifetime %s, asked %v", durWord(r.MaxLifetime), s.MaxLifetime)
	case s.MaxLifetime > 0 && now.Sub(r.CreatedAt) >= s.MaxLifetime:
		return false, fmt.Sprintf("already %v old, asked a max lifetime of %v", now.Sub(r.CreatedAt).Round(time.Millisecond), s.MaxLifetime)
	}
	return true, ""
}

func pick[T int | int64](own, def T) T {
	if own > 0 {
		return own
	}
	return def
}

// The process limits a sandbox may ask for: enough for a shell and a
// build at the low end; the high end is the kernel's own pid_max ceiling.
const (
	MinPids = 64
	MaxPids = 4 << 20
)

func pidsWord(n int64) string {
	if n == 0 {
		return "the default number of"
	}
	return fmt.Sprint(n)
}

func durWord(d time.Duration) string {
	if d == 0 {
		return "none"
	}
	return d.String()
}

func imageWord(name, digest string) string {
	if len(digest) > 19 {
		digest = digest[:19]
	}
	return name + "@" + digest
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
