package agent

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"syscall"
)

// Dialer connects to an agent.
type Dialer func(ctx context.Context) (net.Conn, error)

// Exec runs req in the sandbox behind dial, streaming stdin to it and its
// output back, and returns its exit status. Signals sent on sigs reach the
// command's process group; when ctx ends the command is killed.
func Exec(ctx context.Context, dial Dialer, req Request, stdin io.Reader, stdout, stderr io.Writer, sigs <-chan syscall.Signal) (int, error) {
	conn, err := dial(ctx)
	if err != nil {
		return -1, err
	}
	defer conn.Close()
	if err := sendRequest(conn, req); err != nil {
		return -1, err
	}
	var mu sync.Mutex // frames from the stdin copier and the signal relay
	send := func(typ byte, payload []byte) error {
		mu.Lock()
		defer mu.Unlock()
		return writeFrame(conn, typ, payload)
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		if stdin != nil {
			io.Copy(&frameWriter{mu: &mu, w: conn, typ: frameStdin}, stdin)
		}
		send(frameStdinClose, nil)
	}()
	go func() {
		for {
			select {
			case sig := <-sigs:
				send(frameSignal, []byte{byte(sig)})
			case <-ctx.Done():
				conn.Close() // the agent kills what the client left
				return
			case <-done:
				return
			}
		}
	}()
	if stdout == nil {
		stdout = io.Discard
	}
	if stderr == nil {
		stderr = io.Discard
	}
	return readResult(ctx, conn, stdout, stderr)
}

func sendRequest(conn net.Conn, req Request) error {
	line, err := json.Marshal(req)
	if err != nil {
		return err
	}
	_, err = conn.Write(append(line, '\n'))
	return err
}

func readResult(ctx context.Context, conn net.Conn, stdout, stderr io.Writer) (int, error) {
	br := bufio.NewReaderSize(conn, 64<<10)
	buf := make([]byte, 64<<10)
	for {
		typ, payload, err := readFrame(br, buf)
		if err != nil {
			if ctx.Err() != nil {
				return -1, ctx.Err()
			}
			return -1, fmt.Errorf("agent: connection lost: %w", err)
		}
		switch typ {
		case frameStdout:
			if _, err := stdout.Write(payload); err != nil {
				return -1, err
			}
		case frameStderr:
			if _, err := stderr.Write(payload); err != nil {
				return -1, err
			}
		case frameExit:
			if len(payload) != 4 {
				return -1, errors.New("agent: bad exit frame")
			}
			return int(int32(binary.BigEndian.Uint32(payload))), nil
		case frameError:
			return -1, &StartError{Message: string(payload)}
		}
	}
}

// StartError is a command the agent could not start (not found, not
// executable, no such folder).
type StartError struct{ Message string }

func (e *StartError) Error() string { return e.Message }

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
	return readResult(ctx, conn, io.Discard, io.Discard)
}
