package sandboxes_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"sandboxdesk/sandboxes"
)

// The examples open the default root ($SANDBOXDESK_ROOT, else the per-user
// one), starting a controller there if none runs. Each uses a prefix of
// its own, and removes its sandboxes at the end. They panic rather than
// log.Fatal on an error, so the tests still stop the controller they
// started.

func Example() {
	ctx := context.Background()
	sbx, err := sandboxes.Open(ctx, sandboxes.Config{Prefix: "example"})
	if err != nil {
		panic(err)
	}
	defer sbx.RemoveAll(ctx)
	box, err := sbx.Create(ctx, "w", sandboxes.Shape{Memory: sandboxes.MiB(512)})
	if err != nil {
		panic(err)
	}
	code, err := box.Exec(ctx, sandboxes.Cmd{Args: []string{"echo", "hello from", box.Name}, Stdout: os.Stdout})
	if err != nil {
		panic(err)
	}
	fmt.Println("exit status", code)
	// Output:
	// hello from w
	// exit status 0
}

// Reuse is meet-or-exceed: a sandbox holding 2 GiB serves a 256 MiB ask;
// 4 GiB rebuilds it, keeping its workspace.
func ExampleClient_Create() {
	ctx := context.Background()
	sbx, err := sandboxes.Open(ctx, sandboxes.Config{Prefix: "example-create"})
	if err != nil {
		panic(err)
	}
	defer sbx.RemoveAll(ctx)
	big, _ := sbx.Create(ctx, "w", sandboxes.Shape{Memory: sandboxes.GiB(2)})
	small, _ := sbx.Create(ctx, "w", sandboxes.Shape{Memory: sandboxes.MiB(256)})
	fmt.Println("256 MiB after 2 GiB, same sandbox:", small.ID == big.ID)
	bigger, err := sbx.Create(ctx, "w", sandboxes.Shape{Memory: sandboxes.GiB(4)})
	if err != nil {
		panic(err)
	}
	fmt.Println("4 GiB after 2 GiB, same sandbox:", bigger.ID == big.ID)
	// Output:
	// 256 MiB after 2 GiB, same sandbox: true
	// 4 GiB after 2 GiB, same sandbox: false
}

// A command gets its input, writes to both streams, and its exit status
// comes back as it was.
func ExampleSandbox_Exec() {
	ctx := context.Background()
	sbx, err := sandboxes.Open(ctx, sandboxes.Config{Prefix: "example-exec"})
	if err != nil {
		panic(err)
	}
	defer sbx.RemoveAll(ctx)
	box, err := sbx.Create(ctx, "w", sandboxes.Shape{})
	if err != nil {
		panic(err)
	}
	var stderr strings.Builder
	code, err := box.Exec(ctx, sandboxes.Cmd{
		Args:   []string{"sh", "-c", "tr a-z A-Z; echo to stderr >&2; exit 3"},
		Stdin:  strings.NewReader("shouting\n"),
		Stdout: os.Stdout,
		Stderr: &stderr,
	})
	if err != nil {
		panic(err)
	}
	fmt.Printf("stderr %q, exit status %d\n", stderr.String(), code)
	// Output:
	// SHOUTING
	// stderr "to stderr\n", exit status 3
}

// Cancelling the context is Ctrl-C: the command gets SIGINT, and what it
// does then (here, a word and status 130) still comes back.
func ExampleSandbox_Exec_cancel() {
	ctx := context.Background()
	sbx, err := sandboxes.Open(ctx, sandboxes.Config{Prefix: "example-cancel"})
	if err != nil {
		panic(err)
	}
	defer sbx.RemoveAll(ctx)
	box, err := sbx.Create(ctx, "w", sandboxes.Shape{})
	if err != nil {
		panic(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	script := `trap 'echo interrupted; exit 130' INT; echo ready; while :; do sleep 0.1; done`
	code, err := box.Exec(runCtx, sandboxes.Cmd{
		Args:   []string{"sh", "-c", script},
		Stdout: onLine("ready", cancel, os.Stdout),
	})
	fmt.Println("exit status", code, "-", err)
	// Output:
	// ready
	// interrupted
	// exit status 130 - exec in w: context canceled
}

// onLine passes output on to w and calls fn once a line equal to want has
// gone by.
func onLine(want string, fn func(), w io.Writer) io.Writer {
	pr, pw := io.Pipe()
	go func() {
		buf := make([]byte, 4096)
		var seen string
		for {
			n, err := pr.Read(buf)
			w.Write(buf[:n])
			seen += string(buf[:n])
			if strings.Contains(seen, want+"\n") {
				fn()
				seen = ""
			}
			if err != nil {
				return
			}
		}
	}()
	return pw
}

// Stop keeps the sandbox and its workspace; the next Create starts the
// same one again, with what the last command left in place.
func ExampleSandbox_Stop() {
	ctx := context.Background()
	sbx, err := sandboxes.Open(ctx, sandboxes.Config{Prefix: "example-stop"})
	if err != nil {
		panic(err)
	}
	defer sbx.RemoveAll(ctx)
	box, _ := sbx.Create(ctx, "w", sandboxes.Shape{})
	box.Exec(ctx, sandboxes.Cmd{Args: []string{"sh", "-c", "echo kept > /workspace/note"}})
	if err := box.Stop(ctx); err != nil {
		panic(err)
	}
	fmt.Println(box.State)
	again, _ := sbx.Create(ctx, "w", sandboxes.Shape{})
	fmt.Println(again.State, again.ID == box.ID)
	again.Exec(ctx, sandboxes.Cmd{Args: []string{"cat", "/workspace/note"}, Stdout: os.Stdout})
	// Output:
	// stopped
	// running true
	// kept
}

// Remove reports whether there was anything to remove; removing what is
// gone is not an error.
func ExampleClient_Remove() {
	ctx := context.Background()
	sbx, err := sandboxes.Open(ctx, sandboxes.Config{Prefix: "example-remove"})
	if err != nil {
		panic(err)
	}
	sbx.Create(ctx, "w", sandboxes.Shape{})
	first, _ := sbx.Remove(ctx, "w")
	second, err := sbx.Remove(ctx, "w")
	fmt.Println(first, second, err)
	// Output:
	// true false <nil>
}

// List sees only the sandboxes of its prefix.
func ExampleClient_List() {
	ctx := context.Background()
	ci, _ := sandboxes.Open(ctx, sandboxes.Config{Prefix: "example-ci"})
	dev, _ := sandboxes.Open(ctx, sandboxes.Config{Prefix: "example-dev"})
	defer ci.RemoveAll(ctx)
	defer dev.RemoveAll(ctx)
	a, _ := ci.Create(ctx, "a", sandboxes.Shape{})
	a.Stop(ctx) // this host may run only two at once
	ci.Create(ctx, "b", sandboxes.Shape{})
	dev.Create(ctx, "c", sandboxes.Shape{})
	list, err := ci.List(ctx)
	if err != nil {
		panic(err)
	}
	for _, sb := range list {
		fmt.Println(sb.Prefix, sb.Name, sb.State)
	}
	// Output:
	// example-ci a stopped
	// example-ci b running
}

// Subscribe streams what happens to every sandbox of the root.
func ExampleClient_Subscribe() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sbx, err := sandboxes.Open(ctx, sandboxes.Config{Prefix: "example-events"})
	if err != nil {
		panic(err)
	}
	defer sbx.RemoveAll(context.Background())
	events, err := sbx.Subscribe(ctx)
	if err != nil {
		panic(err)
	}
	go sbx.Create(ctx, "w", sandboxes.Shape{})
	for e := range events {
		if e.Sandbox == "example-events-w" && e.State == "running" {
			fmt.Println(e.Sandbox, "is", e.State)
			break
		}
	}
	// Output:
	// example-events-w is running
}

// A handle by name asks nothing until it is used: a command line that
// acts on a name the person typed makes one request, not two. What the
// controller says comes back in the error as it said it, of its kind.
func ExampleClient_Sandbox() {
	ctx := context.Background()
	sbx, err := sandboxes.Open(ctx, sandboxes.Config{Prefix: "example-handle"})
	if err != nil {
		panic(err)
	}
	defer sbx.RemoveAll(ctx)
	sbx.Create(ctx, "w", sandboxes.Shape{})
	if err := sbx.Sandbox("w").Stop(ctx); err != nil {
		panic(err)
	}
	err = sbx.Sandbox("nope").Stop(ctx)
	var op *sandboxes.OpError
	if errors.As(err, &op) {
		fmt.Printf("%s: %v (not found: %v)\n", op.Op, op.Err, errors.Is(err, sandboxes.ErrNotFound))
	}
	sb, _ := sbx.Sandbox("w").Inspect(ctx)
	fmt.Println(sb.Name, sb.State)
	// Output:
	// stop sandbox nope: no sandbox named example-handle-nope (not found: true)
	// w stopped
}

// RemoveNames removes several in one request and says which were there.
func ExampleClient_RemoveNames() {
	ctx := context.Background()
	sbx, err := sandboxes.Open(ctx, sandboxes.Config{Prefix: "example-names"})
	if err != nil {
		panic(err)
	}
	defer sbx.RemoveAll(ctx)
	a, _ := sbx.Create(ctx, "a", sandboxes.Shape{})
	a.Stop(ctx) // this host may run only two at once
	sbx.Create(ctx, "b", sandboxes.Shape{})
	rep, err := sbx.RemoveNames(ctx, "a", "b", "c")
	fmt.Println("removed", rep.Removed, "missing", rep.Missing, err)
	// Output:
	// removed [a b] missing [c] <nil>
}

// Limits are the root's, whatever the prefix: a setting wins over the
// host's recommendation until it is given back (nil).
func ExampleClient_SetLimits() {
	ctx := context.Background()
	sbx, err := sandboxes.Open(ctx, sandboxes.Config{Prefix: "example-limits"})
	if err != nil {
		panic(err)
	}
	before, err := sbx.Limits(ctx)
	if err != nil {
		panic(err)
	}
	defer sbx.SetLimits(ctx, before.CustomAtOnce, before.CustomRetained)
	five := 5
	lim, err := sbx.SetLimits(ctx, &five, before.CustomRetained)
	if err != nil {
		panic(err)
	}
	fmt.Println("at once:", lim.AtOnce, "set:", lim.CustomAtOnce != nil)
	lim, _ = sbx.SetLimits(ctx, nil, before.CustomRetained)
	fmt.Println("recommended again:", lim.CustomAtOnce == nil && lim.AtOnce == lim.Recommended.AtOnce)
	// Output:
	// at once: 5 set: true
	// recommended again: true
}
