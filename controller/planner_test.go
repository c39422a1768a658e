package controller

import "testing"

func TestHostPlannerAgreesWithRules(t *testing.T) {
	p := HostPlanner{Root: t.TempDir()}
	d, err := p.Defaults(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	c, err := p.Capacity(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if want := DefaultMemoryMiB(c.Host.TotalMemoryBytes, 1, 0); d.MemoryMiB != want {
		t.Errorf("Defaults().MemoryMiB = %d, want %d for this host", d.MemoryMiB, want)
	}
	want, err := RecommendCapacity(c.Host, StandardSize, c.Checkpoints)
	if err != nil || c.Recommended != want {
		t.Errorf("Capacity().Recommended = %+v, want %+v (%v)", c.Recommended, want, err)
	}
}
