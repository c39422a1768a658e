// Package controller is the single owner of sandbox state for one root
// folder. It holds the rules (the memory budget, the recommended capacity,
// the fixed ranges, the reuse rule), the lifecycle of every sandbox
// (queued, starting, running, stopping, suspended, stopped, broken),
// admission and retention, the sweeps that stop idle and expired
// sandboxes, and the SQLite store under the root (rebuilt from each
// sandbox folder's sandbox.json when it is lost or damaged, and kept
// writable on a full disk by a small space reserve). It drives backends
// through the small Backend interface declared here and publishes every
// state change as an ipc.Event.
//
// It does not draw anything and does not speak a wire protocol: the UI and
// the socket server call its methods and subscribe to its events.
package controller
