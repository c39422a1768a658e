package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"sandboxdesk/ipc"
)

// run runs the CLI in-process against a fresh root and returns its exit
// status and output.
func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	args = append([]string{args[0], "--root", t.TempDir()}, args[1:]...)
	code := Run(t.Context(), args, IO{In: strings.NewReader(""), Out: &out, Err: &errb})
	return code, out.String(), errb.String()
}

func TestDefaultsWhatIf(t *testing.T) {
	tests := []struct {
		args []string
		want ipc.Defaults
	}{
		{[]string{"--total-memory", "16GiB", "--cpus-host", "8"}, ipc.Defaults{MemoryMiB: 8192, CPUs: 4, DiskMiB: 8192, BudgetMiB: 8192}},
		{[]string{"--total-memory", "16GiB", "--cpus-host", "2", "--active", "1", "--committed", "8GiB"}, ipc.Defaults{MemoryMiB: 2048, CPUs: 2, DiskMiB: 8192, BudgetMiB: 8192, CommittedMiB: 8192, Active: 1}},
		{[]string{"--total-memory=16GiB", "--cpus-host=2", "--active=1", "--committed=2GiB"}, ipc.Defaults{MemoryMiB: 4096, CPUs: 2, DiskMiB: 8192, BudgetMiB: 8192, CommittedMiB: 2048, Active: 1}},
		{[]string{"-total-memory", "16GiB", "--cpus-host", "2", "--active", "1"}, ipc.Defaults{MemoryMiB: 4096, CPUs: 2, DiskMiB: 8192, BudgetMiB: 8192, Active: 1}},
		{[]string{"--total-memory", "128GiB", "--cpus-host", "64", "--active", "15"}, ipc.Defaults{MemoryMiB: 4096, CPUs: 4, DiskMiB: 8192, BudgetMiB: 65536, Active: 15}},
	}
	for _, tt := range tests {
		code, out, errOut := run(t, append([]string{"defaults", "--json"}, tt.args...)...)
		if code != ExitOK {
			t.Fatalf("defaults %v: exit %d, stderr %q", tt.args, code, errOut)
		}
		var got ipc.Defaults
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("defaults %v: %v in %q", tt.args, err, out)
		}
		if got != tt.want {
			t.Errorf("defaults %v = %+v, want %+v", tt.args, got, tt.want)
		}
	}
}

// TestDefaultsMeasured checks the defaults measured on this host agree
// with the figures printed by capacity for the same host.
func TestDefaultsMeasured(t *testing.T) {
	code, out, errOut := run(t, "defaults", "--json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var d ipc.Defaults
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	code, out, _ = run(t, "capacity", "--json")
	var c ipc.Capacity
	if err := json.Unmarshal([]byte(out), &c); code != ExitOK || err != nil {
		t.Fatalf("capacity: exit %d, %v", code, err)
	}
	if d.BudgetMiB != int64(c.Host.TotalMemoryBytes>>31)*1024 {
		t.Errorf("budget %d MiB is not half of %d bytes in whole GiB", d.BudgetMiB, c.Host.TotalMemoryBytes)
	}
	if d.MemoryMiB < 2048 || d.MemoryMiB > 8192 || d.CPUs < 1 || d.CPUs > 4 {
		t.Errorf("implausible defaults %+v", d)
	}
}

func TestCapacityWhatIf(t *testing.T) {
	mx2 := []string{"--cpus-host", "4", "--total-memory", "14.4GiB", "--free-disk", "239GiB"}
	tests := []struct {
		args []string
		want ipc.Recommended
	}{
		{append([]string{"--checkpoints"}, mx2...), ipc.Recommended{AtOnce: 3, Retained: 14}},
		{append([]string{"--checkpoints=false"}, mx2...), ipc.Recommended{AtOnce: 3, Retained: 3}},
		{[]string{"--cpus-host", "2", "--total-memory", "6GiB", "--free-disk", "10GiB", "--checkpoints"}, ipc.Recommended{AtOnce: 1, Retained: 1}},
		{append([]string{"--sandbox-cpus", "1", "--sandbox-memory", "2GiB", "--sandbox-disk", "4GiB", "--checkpoints"}, mx2...), ipc.Recommended{AtOnce: 6, Retained: 29}},
	}
	for _, tt := range tests {
		code, out, errOut := run(t, append([]string{"capacity", "--json"}, tt.args...)...)
		if code != ExitOK {
			t.Fatalf("capacity %v: exit %d, stderr %q", tt.args, code, errOut)
		}
		var got ipc.Capacity
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("capacity %v: %v", tt.args, err)
		}
		if got.Recommended != tt.want {
			t.Errorf("capacity %v = %+v, want %+v", tt.args, got.Recommended, tt.want)
		}
	}
}

func TestCapacityJSONFields(t *testing.T) {
	_, out, _ := run(t, "capacity", "--json", "--cpus-host", "4", "--total-memory", "14.4GiB", "--free-disk", "239GiB", "--checkpoints")
	var doc map[string]map[string]any
	json.Unmarshal([]byte(strings.Replace(out, `"checkpoints": true,`, "", 1)), &doc)
	want := map[string][]string{
		"host":        {"cpuCount", "effectiveCpuCores", "totalMemoryBytes", "availableDiskBytes"},
		"size":        {"cpus", "memoryMiB", "diskMiB"},
		"recommended": {"atOnce", "retained"},
	}
	for section, fields := range want {
		for _, f := range fields {
			if _, ok := doc[section][f]; !ok {
				t.Errorf("capacity --json lacks %s.%s in %s", section, f, out)
			}
		}
	}
	if !strings.Contains(out, `"checkpoints": true`) {
		t.Errorf("capacity --json lacks checkpoints: %s", out)
	}
}

func TestHumanOutput(t *testing.T) {
	_, out, _ := run(t, "defaults", "--total-memory", "16GiB", "--cpus-host", "4", "--active", "1", "--committed", "8GiB")
	for _, want := range []string{"Memory  2 GiB", "CPUs    4", "Budget  8 GiB  half of 16 GiB"} {
		if !strings.Contains(out, want) {
			t.Errorf("defaults table lacks %q:\n%s", want, out)
		}
	}
	_, out, _ = run(t, "capacity", "--cpus-host", "4", "--total-memory", "14.4GiB", "--free-disk", "239GiB", "--checkpoints")
	for _, want := range []string{"At once       3", "Retained      14", "4 CPUs, 14.4 GiB memory, 239 GiB free disk"} {
		if !strings.Contains(out, want) {
			t.Errorf("capacity table lacks %q:\n%s", want, out)
		}
	}
}

func TestBadInput(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"defaults", "--total-memory", "-1GiB"}, `--total-memory "-1GiB": a size cannot be negative`},
		{[]string{"defaults", "--total-memory", "lots"}, `--total-memory "lots": not a size`},
		{[]string{"defaults", "--total-memory", "0"}, `--total-memory "0": must be more than 0`},
		{[]string{"defaults", "--total-memory", "2GB"}, `unknown unit "GB"`},
		{[]string{"defaults", "--active", "-3"}, `--active "-3": must be 0 or more`},
		{[]string{"defaults", "--active", "two"}, `--active "two": not a whole number`},
		{[]string{"defaults", "--active"}, "--active needs a value"},
		{[]string{"defaults", "--committed", "-1"}, "a size cannot be negative"},
		{[]string{"defaults", "--cpus-host", "0"}, `--cpus-host "0": must be 1 or more`},
		{[]string{"defaults", "--free-disk", "1GiB"}, "unknown flag --free-disk"},
		{[]string{"defaults", "extra"}, `unexpected argument "extra"`},
		{[]string{"capacity", "--cpus-host", "0"}, `--cpus-host "0": must be 1 or more`},
		{[]string{"capacity", "--sandbox-cpus", "0"}, "must be 1 or more"},
		{[]string{"capacity", "--sandbox-memory", "0"}, "must be at least 1 MiB"},
		{[]string{"capacity", "--free-disk", "-5GiB"}, "a size cannot be negative"},
		{[]string{"capacity", "--checkpoints=maybe"}, `--checkpoints "maybe"`},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
	}
	for _, tt := range tests {
		code, out, errOut := run(t, tt.args...)
		if code != ExitUsage {
			t.Errorf("%v: exit %d, want %d", tt.args, code, ExitUsage)
		}
		if out != "" {
			t.Errorf("%v: printed %q on stdout", tt.args, out)
		}
		if strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: stderr %q, want one line containing %q", tt.args, errOut, tt.want)
		}
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"--help"}, {"help", "capacity"}, {"capacity", "--help"}} {
		code, out, _ := run(t, args...)
		if code != ExitOK || !strings.Contains(out, "capacity") {
			t.Errorf("%v: exit %d, output %q", args, code, out)
		}
	}
}

func TestGlobalsBeforeTheCommand(t *testing.T) {
	tests := []struct{ in, want []string }{
		{[]string{"--root", "/r", "list"}, []string{"list", "--root", "/r"}},
		{[]string{"--json", "--root=/r", "--prefix", "ci", "create", "w"}, []string{"create", "--json", "--root=/r", "--prefix", "ci", "w"}},
		{[]string{"list", "--root", "/r"}, []string{"list", "--root", "/r"}},
		{[]string{"exec", "w", "--", "ls", "--root"}, []string{"exec", "w", "--", "ls", "--root"}},
		{[]string{"--help"}, []string{"--help"}},
	}
	for _, tt := range tests {
		if got := globalsAfterCommand(tt.in); strings.Join(got, " ") != strings.Join(tt.want, " ") {
			t.Errorf("%q -> %q, want %q", tt.in, got, tt.want)
		}
	}
}
