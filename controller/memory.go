package controller

import (
	"context"

	"sandboxdesk/host"
	"sandboxdesk/ipc"
	"sandboxdesk/rules"
)

// measured is one measurement of the host, or the error taking it gave.
// A start measures once and every decision of that start reads it.
type measured struct {
	info host.Info
	err  error
}

func (c *Controller) measureNow(ctx context.Context) measured {
	info, err := c.measure(ctx)
	return measured{info, err}
}

// measureOnce measures the host the first time a decision of one call
// needs it, and hands every later decision of that call the same figures:
// a call that decides nothing (a reusing create) measures nothing.
func (c *Controller) measureOnce(ctx context.Context) func() measured {
	var m measured
	done := false
	return func() measured {
		if !done {
			m, done = c.measureNow(ctx), true
		}
		return m
	}
}

// decide is the one place a sandbox's memory is decided, for a start and
// for the quote Defaults gives: its own value, else the Settings default,
// else its share of the budget with itself counted. counted says whether
// the sandbox is already among the active ones (it is marked starting);
// a newcomer or a stopped sandbox is not, and is added. CPUs and disk come
// with it, so one call answers everything a start needs.
func (c *Controller) decide(ctx context.Context, own int64, m measured, counted bool) (ipc.Defaults, error) {
	setting, set, err := c.settingInt(ctx, settingDefaultMemory)
	if err != nil {
		return ipc.Defaults{}, err
	}
	c.mu.Lock()
	others, committed := c.activeLocked(), c.committedLocked()
	c.mu.Unlock()
	if counted {
		others = max(others-1, 0)
	}
	d := rules.PlanDefaults(m.info, others, committed)
	if m.err != nil {
		d.CPUs = rules.DefaultCPUs(1) // a time slice, never a guess at memory
	}
	if set {
		d.StoredMemoryMiB = int64(setting) // Settings shows and keeps it
	}
	switch {
	case own > 0:
		d.MemoryMiB = own
	case set:
		d.MemoryMiB = int64(setting)
	case m.err != nil:
		return d, ipc.Errorf(ipc.ErrUnavailable, "cannot measure host memory to share it out (%v); give the sandbox a memory size", m.err)
	}
	return d, nil
}

// held is what an existing sandbox really offers a reuse check for each
// capacity (DESIGN "held").
type held struct {
	memoryMiB int64
	cpus      int
	diskMiB   int64
}

// heldBy is what r holds: its own value; else, running, what its start
// gave it (a VM's reservation, a process sandbox's enforced limit); else,
// stopped, what a start would give it now.
func (c *Controller) heldBy(ctx context.Context, r *record, m func() measured) held {
	h := held{memoryMiB: r.MemoryMiB, cpus: r.CPUs, diskMiB: r.DiskMiB}
	if r.State.Active() {
		h.memoryMiB = pick(h.memoryMiB, pick(r.ReservedMiB, r.LimitMiB))
		h.cpus = pick(h.cpus, r.HeldCPUs)
		h.diskMiB = pick(h.diskMiB, r.HeldDiskMiB)
	}
	if h.memoryMiB > 0 && h.cpus > 0 && h.diskMiB > 0 {
		return h
	}
	// what a start would give it now; with the host unmeasured and no
	// Settings default, memory stays 0 and any memory ask rebuilds
	d, err := c.decide(ctx, 0, m(), r.State.Active())
	if err != nil {
		d.MemoryMiB = 0
	}
	return held{memoryMiB: pick(h.memoryMiB, d.MemoryMiB), cpus: pick(h.cpus, d.CPUs), diskMiB: pick(h.diskMiB, d.DiskMiB)}
}
