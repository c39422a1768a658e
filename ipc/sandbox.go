package ipc

import "time"

// State is a sandbox's runtime state.
type State string

const (
	StateStopped   State = "stopped"
	StateQueued    State = "queued"   // waiting for an "at once" slot
	StateStarting  State = "starting" // admitted; the backend is building it
	StateRunning   State = "running"
	StateStopping  State = "stopping"
	StateSuspended State = "suspended" // stopped with a checkpoint held
	StateBroken    State = "broken"    // needs attention; never silently deleted
)

// Active reports whether a sandbox in state s counts for the memory share
// and the "at once" limit.
func (s State) Active() bool { return s == StateStarting || s == StateRunning || s == StateStopping }

// Sandbox is one sandbox as `list` and `inspect` show it.
type Sandbox struct {
	Name    string `json:"name"`
	Prefix  string `json:"prefix,omitempty"`
	ID      string `json:"id"`
	State   State  `json:"state"`
	Image   string `json:"image"`
	Backend string `json:"backend"`
	// CreatedAt is when this ID was built; a rebuild gets a new one.
	CreatedAt     time.Time `json:"createdAt"`
	IdleTimeoutMs int64     `json:"idleTimeoutMs"` // 0: none
	MaxLifetimeMs int64     `json:"maxLifetimeMs"` // 0: none
	StopGraceMs   int64     `json:"stopGraceMs"`
	// MemoryMiB is the sandbox's own memory; 0 means "the default at start".
	MemoryMiB int64 `json:"memoryMiB"`
	// ReservedMiB is what a running VM really holds; absent when nothing is
	// reserved (stopped, or a backend that reserves nothing).
	ReservedMiB int64 `json:"reservedMiB,omitempty"`
	// Accel is how a running VM's processor runs: "kvm" (hardware
	// virtualisation) or "tcg" (software emulation, many times slower);
	// absent for a sandbox that is not a VM or not running.
	Accel string `json:"accel,omitempty"`
	// MemoryLimitMiB is the limit enforced on a running sandbox's host
	// processes; absent when none is enforced.
	MemoryLimitMiB int64 `json:"memoryLimitMiB,omitempty"`
	CPUs           int   `json:"cpus"`    // 0: the default at start
	DiskMiB        int64 `json:"diskMiB"` // 0: the default at start
	// Network is "on" (outbound only, through a NAT), "off" (none) or
	// "host" (the host's own network, its loopback services included).
	Network string `json:"network"`
	// NestedUserns: processes inside may make user namespaces of their
	// own (off unless the create asked).
	NestedUserns bool `json:"nestedUserns,omitempty"`
	// Pids is the sandbox's own limit on processes and threads; 0 means
	// the backend's default.
	Pids int64 `json:"pids"`
	// PidsLimit is the process limit enforced on a running sandbox;
	// absent when none is.
	PidsLimit int64 `json:"pidsLimit,omitempty"`
	// DiskLimitMiB is the size a running sandbox's writable folders
	// cannot grow past; absent when the disk is not limited (DiskMiB is
	// then only what it asked for).
	DiskLimitMiB int64 `json:"diskLimitMiB,omitempty"`
	// What the limits did over the sandbox's life: processes the kernel
	// killed for want of memory, and new processes the limit refused; and
	// the last notice about it.
	OOMKills      int        `json:"oomKills,omitempty"`
	PidsLimitHits int        `json:"pidsLimitHits,omitempty"`
	LastNotice    string     `json:"lastNotice,omitempty"`
	LastNoticeAt  *time.Time `json:"lastNoticeAt,omitempty"`

	QueuePosition int        `json:"queuePosition,omitempty"` // 1 is next
	StartedAt     *time.Time `json:"startedAt,omitempty"`
	LastUsedAt    *time.Time `json:"lastUsedAt,omitempty"`
	Checkpoint    bool       `json:"checkpoint,omitempty"`
	Workspace     string     `json:"workspace"`
	Error         string     `json:"error,omitempty"` // why it is broken, or why it stopped on its own
}

// CreateRequest asks for a sandbox of a shape. A nil field is "unset": a
// capacity any sandbox meets, a ceiling of none, or the default at start.
// A field that is set must be a real value: zero or negative is refused.
type CreateRequest struct {
	Name          string `json:"name"`
	Prefix        string `json:"prefix,omitempty"`
	Image         string `json:"image,omitempty"`
	Backend       string `json:"backend,omitempty"`
	MemoryMiB     *int64 `json:"memoryMiB,omitempty"`
	CPUs          *int   `json:"cpus,omitempty"`
	DiskMiB       *int64 `json:"diskMiB,omitempty"`
	Pids          *int64 `json:"pids,omitempty"`
	IdleTimeoutMs *int64 `json:"idleTimeoutMs,omitempty"`
	MaxLifetimeMs *int64 `json:"maxLifetimeMs,omitempty"`
	StopGraceMs   *int64 `json:"stopGraceMs,omitempty"`
	// Network is "on" (the default: outbound only, through a NAT), "off"
	// (no network) or "host" (the host's own network, loopback included).
	Network string `json:"network,omitempty"`
	// NestedUserns lets processes inside make user namespaces of their
	// own (rootless containers, some browsers' sandboxes). Off by default:
	// it opens more of the kernel to the sandbox.
	NestedUserns bool `json:"nestedUserns,omitempty"`
	// Replace removes the sandbox and its workspace first. It is an action,
	// never stored.
	Replace bool `json:"replace,omitempty"`
}

// Ref names one sandbox of a fleet.
type Ref struct {
	Prefix string `json:"prefix,omitempty"`
	Name   string `json:"name"`
}

// Limits are the capacity limits in force and what the host recommends.
type Limits struct {
	AtOnce   int `json:"atOnce"`
	Retained int `json:"retained"`
	// Custom values are nil when the limit follows the recommendation.
	CustomAtOnce   *int        `json:"customAtOnce,omitempty"`
	CustomRetained *int        `json:"customRetained,omitempty"`
	Recommended    Recommended `json:"recommended"`
}
