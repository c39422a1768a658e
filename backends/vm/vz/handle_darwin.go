package vz

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/Code-Hex/vz/v3"

	"sandboxdesk/backends/vm"
)

// requestGrace is how long Kill lets the guest act on the framework's
// stop request before it stops the machine outright.
const requestGrace = 5 * time.Second

// handle is one running machine of this process.
type handle struct {
	vm     *vz.VirtualMachine
	dir    string
	port   uint32
	memMiB int64

	exited chan struct{}
	once   sync.Once
}

// newHandle watches the machine's state for its end.
func newHandle(machine *vz.VirtualMachine, c Config, dir string) *handle {
	h := &handle{vm: machine, dir: dir, port: c.VsockPort, memMiB: c.MemoryMiB, exited: make(chan struct{})}
	states := machine.StateChangedNotify()
	go func() {
		for st := range states {
			if st == vz.VirtualMachineStateStopped || st == vz.VirtualMachineStateError {
				h.end()
				return
			}
		}
	}()
	// it may have ended before the watch began
	if st := machine.State(); st == vz.VirtualMachineStateStopped || st == vz.VirtualMachineStateError {
		h.end()
	}
	return h
}

func (h *handle) end() { h.once.Do(func() { close(h.exited) }) }

func (h *handle) Exited() <-chan struct{} { return h.exited }

// Agent connects to the agent's vsock port. The framework's connect
// takes no deadline, so a caller that gives up leaves it to finish and
// closes what it brings.
func (h *handle) Agent(ctx context.Context) (io.ReadWriteCloser, error) {
	devs := h.vm.SocketDevices()
	if len(devs) == 0 {
		return nil, errors.New("vz: the machine has no vsock device")
	}
	type result struct {
		conn *vz.VirtioSocketConnection
		err  error
	}
	got := make(chan result, 1)
	go func() {
		conn, err := devs[0].Connect(h.port)
		got <- result{conn, err}
	}()
	select {
	case r := <-got:
		if r.err != nil {
			return nil, fmt.Errorf("vz: connect to the agent: %w", r.err)
		}
		return r.conn, nil
	case <-ctx.Done():
	case <-h.exited:
	}
	go func() {
		if r := <-got; r.conn != nil {
			r.conn.Close()
		}
	}()
	select {
	case <-h.exited:
		return nil, vm.ErrGone
	default:
		return nil, ctx.Err()
	}
}

// MemoryMiB is the memory the machine was built with: the framework
// gives a machine exactly its configured size for its whole life (there
// is no balloon), and has no other figure to read back.
func (h *handle) MemoryMiB(context.Context) (int64, error) {
	select {
	case <-h.exited:
		return 0, vm.ErrGone
	default:
		return h.memMiB, nil
	}
}

// Save pauses the machine, writes its state beside as file.tmp, renamed
// once complete, and stops it. On failure the machine runs on.
func (h *handle) Save(ctx context.Context, file string) error {
	final := filepath.Join(h.dir, filepath.Base(file))
	tmp := final + ".tmp"
	if err := h.vm.Pause(); err != nil {
		return fmt.Errorf("pause the VM: %w", refused(err))
	}
	os.Remove(tmp)
	err := saveState(h.vm, tmp)
	if err == nil {
		err = os.Rename(tmp, final)
	}
	if err != nil {
		os.Remove(tmp)
		if rerr := h.vm.Resume(); rerr != nil {
			return fmt.Errorf("save the VM: %w; and it did not resume: %v", refused(err), rerr)
		}
		return fmt.Errorf("save the VM: %w", refused(err))
	}
	if err := h.stop(); err != nil {
		return fmt.Errorf("the VM was saved but did not stop: %w", err)
	}
	return nil
}

// Kill asks the guest to stop through the framework, and stops the
// machine outright when it has not within requestGrace.
func (h *handle) Kill(ctx context.Context) error {
	select {
	case <-h.exited:
		return nil
	default:
	}
	if h.vm.CanRequestStop() {
		if ok, err := h.vm.RequestStop(); ok && err == nil {
			select {
			case <-h.exited:
				return nil
			case <-time.After(requestGrace):
			case <-ctx.Done():
			}
		}
	}
	return h.stop()
}

// stop ends the machine at once and waits for the framework to say so.
func (h *handle) stop() error {
	select {
	case <-h.exited:
		return nil
	default:
	}
	if h.vm.CanStop() {
		if err := h.vm.Stop(); err != nil {
			return fmt.Errorf("stop the VM: %w", refused(err))
		}
	}
	select {
	case <-h.exited:
		return nil
	case <-time.After(10 * time.Second):
		return errors.New("the VM did not stop")
	}
}

// Close lets go of the machine; it runs on until it is stopped or this
// process ends.
func (h *handle) Close() error { return nil }
