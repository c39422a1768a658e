package agent

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"

	"sandboxdesk/stream"
)

// Dialer connects to an agent.
type Dialer func(ctx context.Context) (net.Conn, error)

// StartError is a command the agent could not start.
type StartError = stream.StartError

// Exec runs req in the sandbox behind dial, streaming stdin to it and its
// output back, and returns its exit status. Signals sent on sigs reach the
// command's process group; when ctx ends the command is killed.
func Exec(ctx context.Context, dial Dialer, req Request, cio stream.IO) (int, error) {
	conn, err := dial(ctx)
	if err != nil {
		return -1, err
	}
	defer conn.Close()
	line, err := json.Marshal(req)
	if err != nil {
		return -1, err
	}
	return stream.Exec(ctx, conn, append(line, '\n'), cio)
}

func sendRequest(conn net.Conn, req Request) error {
	line, err := json.Marshal(req)
	if err != nil {
		return err
	}
	_, err = conn.Write(append(line, '\n'))
	return err
}

// Call performs a request that is not an exec ("ping", "terminate") and
// returns its status.
func Call(ctx context.Context, dial Dialer, req Request) (int, error) {
	conn, err := dial(ctx)
	if err != nil {
		return -1, err
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	if err := sendRequest(conn, req); err != nil {
		return -1, err
	}
	return stream.Result(ctx, bufio.NewReader(conn), io.Discard, io.Discard)
}
