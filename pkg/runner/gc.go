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
	// defaultMemoryLimit is the soft limit without a container limit.
	defaultMemoryLimit = 1 << 30
)

// TuneGC sets the garbage collector of a long-running server, unless the
// environment sets it (GOGC, GOMEMLIMIT): a GC target of 400 % with a soft
// memory limit, so that the larger target never outgrows the container:
// 80 % of the cgroup's memory limit when there is one, else 1 GiB. Near
// the limit the runtime collects more often instead.
func TuneGC() {
	if os.Getenv("GOMEMLIMIT") == "" {
		limit := int64(defaultMemoryLimit)
		if c, ok := cgroupMemoryLimit(); ok {
			limit = c / 5 * 4
		}
		debug.SetMemoryLimit(limit)
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(serverGCPercent)
	}
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
