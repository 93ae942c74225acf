package runner

import (
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// GC tuning of a server process (docs/architecture.md#runtime-contract).
const (
	// serverGCPercent: a service keeps a small live heap (tens of MB) and
	// allocates per request, so Go's default target (100 %) collected
	// every few MB: ~11 % of the stack's CPU under a search load at 1 M
	// projects (bench/README.md). 400 collects a quarter as often.
	serverGCPercent = 400
	// defaultMemoryLimit is the soft limit when neither the container's
	// limit nor the machine's memory can be read.
	defaultMemoryLimit = 1 << 30
)

// TuneGC sets the garbage collector of a long-running server, unless the
// environment sets it (GOGC, GOMEMLIMIT): a GC target of 400 % with a soft
// memory limit, so that the larger target never outgrows the container:
// 80 % of the cgroup's memory limit when there is one, else a quarter of
// the machine's memory (a limit below a large live heap would make the
// runtime collect without pause). Near the limit the runtime collects more
// often instead.
func TuneGC() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(serverMemoryLimit())
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(serverGCPercent)
	}
}

// serverMemoryLimit is TuneGC's soft memory limit.
func serverMemoryLimit() int64 {
	if c, ok := cgroupMemoryLimit(); ok {
		return c / 5 * 4
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		if total, ok := memTotal(string(b)); ok {
			return total / 4
		}
	}
	return defaultMemoryLimit
}

// memTotal reads MemTotal (in kB) from /proc/meminfo, in bytes.
func memTotal(meminfo string) (int64, bool) {
	for _, line := range strings.Split(meminfo, "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil || kb <= 0 {
				return 0, false
			}
			return kb << 10, true
		}
	}
	return 0, false
}

// cgroupMemoryLimit reads the container's memory limit (cgroup v2, then
// v1); ok is false without one.
func cgroupMemoryLimit() (int64, bool) {
	for _, f := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		return parseMemoryLimit(string(b))
	}
	return 0, false
}

// parseMemoryLimit parses a cgroup memory limit file: "max" (v2) or a
// number near 2^63 (v1) means none.
func parseMemoryLimit(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n >= 1<<62 {
		return 0, false
	}
	return n, true
}
