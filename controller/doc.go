// Package controller is the single owner of sandbox state for one root
// folder. It holds the lifecycle of every sandbox (queued, starting,
// running, stopping, suspended, stopped, broken), the decisions made with
// the rules of package rules (a sandbox's memory, decided once per start;
// the reuse rule, against what a sandbox really holds), admission and
// retention, the sweeps that stop idle and expired sandboxes, and the
// SQLite store under the root (rebuilt from each sandbox folder's
// sandbox.json when it is lost or damaged, and kept writable on a full
// disk by a small space reserve). It owns the root through its lock
// (package rootlock), drives backends through the small Backend interface
// declared here, and publishes every state change as an ipc.Event.
//
// It does not draw anything and speaks no transport: Service answers the
// requests of package ipc, and package wire carries them. Only package
// daemon builds a controller; the app and the command line get a client.
package controller
