//go:build !unix

package sandboxes_test

// runAgent: no platform without unix has an agent yet.
func runAgent([]string) (int, bool) { return 0, false }
