package vm

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"sandboxdesk/backends/agent"
	"sandboxdesk/backends/vm/channel"
)

// IdentityFile is a machine's hardware identity (vz's generic machine
// identifier), made once and kept across cold boots: the guest sees the
// same machine each time, and a checkpoint restores only onto the machine
// it was saved from.
const IdentityFile = "machine-id"

// freshDir makes a sandbox's folder, emptied of what a machine that ended
// left (sockets, logs) but its identity; a stale record never describes a
// new machine.
func freshDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("vm backend: %w", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("vm backend: %w", err)
	}
	for _, e := range entries {
		if e.Name() == IdentityFile {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return fmt.Errorf("vm backend: %w", err)
		}
	}
	return nil
}

func writeRecord(dir string, rec record) error {
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, "machine.json.tmp")
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return fmt.Errorf("vm backend: %w", err)
	}
	return os.Rename(tmp, filepath.Join(dir, "machine.json"))
}

func readRecord(dir string) (record, error) {
	var rec record
	data, err := os.ReadFile(filepath.Join(dir, "machine.json"))
	if err != nil {
		return rec, err
	}
	return rec, json.Unmarshal(data, &rec)
}

// dial opens one agent connection, connecting the channel first when
// there is none (a new machine, or a channel that broke).
func (m *machine) dial(ctx context.Context) (net.Conn, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.client == nil || m.client.Closed() {
		c, err := m.connect(ctx)
		if err != nil {
			return nil, err
		}
		m.client = c
	}
	return m.client.Dial(ctx)
}

// connect opens the channel and checks that the agent answers on it. A
// guest that has not yet seen the previous host go (a controller that
// restarted) refuses the first one; it listens anew a moment later.
func (m *machine) connect(ctx context.Context) (*channel.Client, error) {
	var last error
	for range 5 {
		rwc, err := m.h.Agent(ctx)
		if err != nil {
			return nil, err
		}
		c, err := channel.NewClient(rwc)
		if err != nil {
			rwc.Close()
			return nil, err
		}
		pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_, last = call(pctx, c.Dial, agent.Request{Op: "ping"})
		cancel()
		if last == nil {
			return c, nil
		}
		c.Close()
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-m.h.Exited():
			return nil, ErrGone
		case <-time.After(300 * time.Millisecond):
		}
	}
	return nil, fmt.Errorf("the guest agent does not answer: %w", last)
}

// waitAgent waits for the booting guest's agent to answer.
func (m *machine) waitAgent(ctx context.Context) error {
	for {
		c, err := m.connect(ctx)
		if err == nil {
			m.mu.Lock()
			m.client = c
			m.mu.Unlock()
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-m.h.Exited():
			return ErrGone
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func (m *machine) resetChannel() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.client != nil {
		m.client.Close()
		m.client = nil
	}
}

func (m *machine) close() {
	m.resetChannel()
	m.h.Close()
}
