package controller

import (
	"context"
	"sort"
	"strconv"

	"sandboxdesk/ipc"
	"sandboxdesk/rules"
)

// Setting keys. A limit that is not stored follows the recommendation.
const (
	settingAtOnce        = "limits.atOnce"
	settingRetained      = "limits.retained"
	settingDefaultMemory = "defaults.memoryMiB"
)

// maxLimit bounds a custom capacity limit: more is a typo.
const maxLimit = 1000

func (c *Controller) settingInt(ctx context.Context, key string) (int, bool, error) {
	v, ok, err := c.store.setting(ctx, key)
	if err != nil || !ok {
		return 0, false, err
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		c.log.Warn("ignoring a damaged setting", "key", key, "value", v)
		return 0, false, nil
	}
	return n, true, nil
}

// checkpoints is whether any backend keeps checkpoints: then retention
// matters and the recommendation may retain more than run.
func (c *Controller) checkpoints() bool {
	for _, b := range c.backends {
		if b.Capabilities().Checkpoints {
			return true
		}
	}
	return false
}

// Limits returns the capacity limits in force: custom values where set,
// else the recommendation for this host, re-measured on every call so a
// changed host is followed. With a limit unset and a host that cannot be
// measured, it is an error rather than a guess.
func (c *Controller) Limits(ctx context.Context) (ipc.Limits, error) {
	return c.limitsOn(ctx, c.measureNow(ctx))
}

// limitsOn is Limits on a host already measured (m).
func (c *Controller) limitsOn(ctx context.Context, m measured) (ipc.Limits, error) {
	var lim ipc.Limits
	atOnce, okA, err := c.settingInt(ctx, settingAtOnce)
	if err != nil {
		return lim, err
	}
	retained, okR, err := c.settingInt(ctx, settingRetained)
	if err != nil {
		return lim, err
	}
	merr := m.err
	if merr == nil {
		lim.Recommended, merr = rules.RecommendCapacity(m.info, rules.StandardSize, c.checkpoints())
	}
	if merr != nil && (!okA || !okR) {
		return lim, ipc.Errorf(ipc.ErrUnavailable, "cannot recommend a capacity: %v; set custom limits in Settings", merr)
	}
	lim.AtOnce, lim.Retained = lim.Recommended.AtOnce, lim.Recommended.Retained
	if okA {
		lim.AtOnce, lim.CustomAtOnce = atOnce, &atOnce
	}
	if okR {
		lim.Retained, lim.CustomRetained = retained, &retained
	}
	lim.Retained = max(lim.Retained, lim.AtOnce)
	return lim, nil
}

// SetLimits stores custom limits; a nil value returns that limit to the
// recommendation. Bad values change nothing.
func (c *Controller) SetLimits(ctx context.Context, atOnce, retained *int) (ipc.Limits, error) {
	values := map[string]*string{}
	for key, v := range map[string]*int{settingAtOnce: atOnce, settingRetained: retained} {
		if v == nil {
			values[key] = nil
			continue
		}
		if *v < 1 || *v > maxLimit {
			return ipc.Limits{}, ipc.Errorf(ipc.ErrInvalid, "a capacity limit must be 1 to %d, got %d", maxLimit, *v)
		}
		s := strconv.Itoa(*v)
		values[key] = &s
	}
	if err := c.store.setSettings(ctx, values); err != nil {
		return ipc.Limits{}, err
	}
	lim, err := c.Limits(ctx)
	if err != nil {
		return lim, err
	}
	c.mu.Lock()
	c.atOnce = lim.AtOnce
	c.admitNextLocked(ctx) // a raised limit lets the queue in
	c.mu.Unlock()
	c.enforceRetention(ctx)
	return lim, nil
}

// SetDefaultMemory stores the provider-wide default memory, which outranks
// the share of the budget; nil returns to sharing the budget.
func (c *Controller) SetDefaultMemory(ctx context.Context, mib *int64) error {
	if mib == nil {
		return c.store.setSettings(ctx, map[string]*string{settingDefaultMemory: nil})
	}
	rng, err := rules.RangesFor(c.backends[c.defBack].Capabilities().Kind)
	if err != nil {
		return err
	}
	if err := rng.CheckMemoryMiB(*mib); err != nil {
		return ipc.Errorf(ipc.ErrInvalid, "default %v, got %s", err, sizeWord(*mib))
	}
	s := strconv.FormatInt(*mib, 10)
	return c.store.setSettings(ctx, map[string]*string{settingDefaultMemory: &s})
}

// Defaults is what a sandbox added now would get for every field it leaves
// empty: the same figures the start path will hand out, because it counts
// the newcomer and the same committed total.
func (c *Controller) Defaults(ctx context.Context) (ipc.Defaults, error) {
	m := c.measureNow(ctx)
	if m.err != nil {
		return ipc.Defaults{}, ipc.Errorf(ipc.ErrUnavailable, "cannot measure this host: %v", m.err)
	}
	return c.decide(ctx, 0, m, false)
}

// Capacity reports this host, the Standard size and the recommendation.
func (c *Controller) Capacity(ctx context.Context) (ipc.Capacity, error) {
	info, err := c.measure(ctx)
	if err != nil {
		return ipc.Capacity{}, ipc.Errorf(ipc.ErrUnavailable, "cannot measure this host: %v", err)
	}
	cp := c.checkpoints()
	rec, err := rules.RecommendCapacity(info, rules.StandardSize, cp)
	if err != nil {
		return ipc.Capacity{}, err
	}
	return ipc.Capacity{Host: info, Size: rules.StandardSize, Checkpoints: cp, Recommended: rec}, nil
}

func sortedCopy(in []string) []string {
	out := append([]string(nil), in...)
	sort.Strings(out)
	return out
}
