package main

import (
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// selfCPU is this process's CPU time (user + system).
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// backendCPU sums the CPU time of the PostgreSQL backends connected to
// db's database (read from /proc: the server must run on this machine),
// by pid. ok is false when it cannot tell.
func backendCPU(ctx context.Context, db string) (map[int]time.Duration, bool) {
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		return nil, false
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)
	if err != nil {
		return nil, false
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return nil, false
	}
	out := map[int]time.Duration{}
	for _, pid := range pids {
		raw, err := os.ReadFile("/proc/" + strconv.Itoa(int(pid)) + "/stat")
		if err != nil {
			return nil, false
		}
		// fields after the command's closing parenthesis: utime and stime are 14th and 15th
		_, rest, _ := strings.Cut(string(raw), ") ")
		f := strings.Fields(rest)
		if len(f) < 13 {
			return nil, false
		}
		u, _ := strconv.Atoi(f[11])
		s, _ := strconv.Atoi(f[12])
		out[int(pid)] = time.Duration(u+s) * time.Second / 100 // USER_HZ
	}
	return out, true
}

// cpuSince is the CPU the backends of after used since before (a backend
// that is new counts whole).
func cpuSince(before, after map[int]time.Duration) time.Duration {
	var d time.Duration
	for pid, t := range after {
		d += t - before[pid]
	}
	return d
}
