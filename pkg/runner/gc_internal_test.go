package runner

import (
	"runtime/debug"
	"testing"
)

func TestParseMemoryLimit(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"max\n", 0, false},                 // cgroup v2, no limit
		{"9223372036854771712\n", 0, false}, // cgroup v1, no limit
		{"402653184\n", 402653184, true},    // 384 MiB
		{"", 0, false}, {"-1", 0, false}, {"lots", 0, false},
	} {
		got, ok := parseMemoryLimit(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("parseMemoryLimit(%q) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

// TuneGC sets a 400 % target and a soft limit, and leaves both alone when
// the environment sets them.
func TestTuneGC(t *testing.T) {
	pct, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetGCPercent(pct); debug.SetMemoryLimit(limit) })

	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	TuneGC()
	if got := debug.SetGCPercent(-1); got != serverGCPercent {
		t.Errorf("GC percent %d, want %d", got, serverGCPercent)
	}
	if got, want := debug.SetMemoryLimit(-1), serverMemoryLimit(); got != want || want <= 0 {
		t.Errorf("memory limit %d, want %d", got, want)
	}

	debug.SetGCPercent(100)
	debug.SetMemoryLimit(1 << 40)
	t.Setenv("GOGC", "100")
	t.Setenv("GOMEMLIMIT", "1TiB")
	TuneGC()
	if got := debug.SetGCPercent(-1); got != 100 {
		t.Errorf("with GOGC set: GC percent %d, want it left at 100", got)
	}
	if got := debug.SetMemoryLimit(-1); got != 1<<40 {
		t.Errorf("with GOMEMLIMIT set: limit %d, want it left alone", got)
	}
}

func TestMemTotal(t *testing.T) {
	got, ok := memTotal("MemFree:        1000 kB\nMemTotal:       24576000 kB\nBuffers: 1 kB\n")
	if !ok || got != 24576000<<10 {
		t.Fatalf("memTotal = %d, %v", got, ok)
	}
	if _, ok := memTotal("MemFree: 1 kB\n"); ok {
		t.Fatal("memTotal without MemTotal")
	}
}
