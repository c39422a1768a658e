package sandboxes

import (
	"encoding/json"
	"testing"
	"time"

	"sandboxdesk/units"
)

// TestShapeOnTheWire: what a Shape asks the controller, field by field.
// Unset stays absent (a capacity any sandbox meets, no ceiling); a size
// that is not whole MiB rounds up, so the ask is never under-served.
func TestShapeOnTheWire(t *testing.T) {
	for _, tt := range []struct {
		name  string
		shape Shape
		want  string
	}{
		{"nothing set", Shape{}, `{"name":"w","prefix":"ci"}`},
		{"2 GiB", Shape{Memory: GiB(2)}, `{"name":"w","prefix":"ci","memoryMiB":2048}`},
		{"256 MiB", Shape{Memory: MiB(256)}, `{"name":"w","prefix":"ci","memoryMiB":256}`},
		{"1.5 MiB rounds up", Shape{Memory: MiB(1) + 512*units.KiB}, `{"name":"w","prefix":"ci","memoryMiB":2}`},
		{"disk and cpus", Shape{Disk: GiB(8), CPUs: 2}, `{"name":"w","prefix":"ci","cpus":2,"diskMiB":8192}`},
		{"a one-hour lifetime", Shape{MaxLifetime: time.Hour}, `{"name":"w","prefix":"ci","maxLifetimeMs":3600000}`},
		{"a one-minute lifetime", Shape{MaxLifetime: time.Minute}, `{"name":"w","prefix":"ci","maxLifetimeMs":60000}`},
		{"under a millisecond is still a ceiling", Shape{IdleTimeout: time.Microsecond}, `{"name":"w","prefix":"ci","idleTimeoutMs":1}`},
		{"stop grace", Shape{StopGrace: 90 * time.Second}, `{"name":"w","prefix":"ci","stopGraceMs":90000}`},
		{"no stop grace: kill at once", Shape{StopGrace: NoGrace}, `{"name":"w","prefix":"ci","stopGraceMs":0}`},
		{"300 processes, nested user namespaces", Shape{Pids: 300, NestedUserns: true}, `{"name":"w","prefix":"ci","pids":300,"nestedUserns":true}`},
		{"replace, isolated", Shape{Replace: true, Network: "off", Image: "alpine"}, `{"name":"w","prefix":"ci","image":"alpine","network":"off","replace":true}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.shape.request("ci", "w"))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}
