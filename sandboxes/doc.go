// Package sandboxes is the Go client of a sandboxdesk controller: the
// API of named sandboxes that agents drive from code. Open a root, Create
// a sandbox by name (the existing one is reused when its shape still
// serves), Exec commands in it, Stop it, Remove it.
//
//	sbx, err := sandboxes.Open(ctx, sandboxes.Config{Prefix: "ci"})
//	box, err := sbx.Create(ctx, "w", sandboxes.Shape{Memory: sandboxes.GiB(2)})
//	code, err := box.Exec(ctx, sandboxes.Cmd{Args: []string{"make", "test"}, Stdout: os.Stdout})
//
// It speaks the control protocol of docs/protocol.md over the socket in
// the root (package wire); when no controller answers, Open starts
// `sandboxdesk serve` for the root. It runs no sandbox itself and links no
// controller. The sandboxdesk command line is built on it: every command
// that asks a controller (create, list, inspect, stop, rm, exec, shell,
// images, limits, defaults, capacity, quit) is a call of this package.
package sandboxes
