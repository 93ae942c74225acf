// Command load offers a fixed rate of requests to BidRadar's REST API
// through the gateway (open loop: requests leave on a clock, whatever the
// answers, and latency counts from the scheduled time, so queueing shows),
// in a mix of searches, signed-in listings with marks, project details,
// market benchmarks and marks written, and reports per kind p50/p95/p99,
// achieved against offered rate and errors (bench/README.md).
//
//	make run   # or make run-cluster, on a database holding the projects
//	cd bench/load && go run . -url http://127.0.0.1:8080 -rate search=500
//	go run . -start -db postgres://postgres@127.0.0.1:5432/bench_search_1000000 [-read-db …]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"bidradar/pkg/runner"
	"bidradar/stack"
)

func main() {
	base := flag.String("url", "http://127.0.0.1:8080", "the gateway's origin (make run, make run-cluster)")
	start := flag.Bool("start", false, "start the whole stack in this process instead (on -db, reads on -read-db)")
	db := flag.String("db", "postgres://postgres@127.0.0.1:5432/bench_search_1000000?sslmode=disable", "with -start: DATABASE_URL; always: the database whose backends' CPU is reported (when on this machine)")
	readDB := flag.String("read-db", "", "with -start: DATABASE_READ_URL (a streaming replica serving the read-only queries)")
	rates := flag.String("rate", "search=500,listing=40,details=40,market=10,mark=10", "requests/s per kind: search, listing, details, market, mark")
	duration := flag.Duration("duration", 30*time.Second, "measured time (access tokens last 15 min)")
	warmup := flag.Duration("warmup", 5*time.Second, "offered first, not measured")
	users := flag.Int("users", 20, "signed-in users (registered when missing)")
	marks := flag.Int("marks", 50, "projects each user marks before the run")
	prefix := flag.String("prefix", "loadbench", "user names: <prefix>1, <prefix>2 …")
	password := flag.String("password", "load bench password 2569", "the users' password")
	mailDir := flag.String("mail-dir", ".data/mail", "where the development mail sender writes (MAIL_DIR), to register users")
	market := flag.Bool("market", true, "include GET /market/benchmarks (left out with a note when it answers 404)")
	seed := flag.Uint64("seed", 1, "random seed")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the measured run (of the stack too with -start)")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	r, err := parseRates(*rates)
	if err != nil {
		fail(err)
	}
	if *start {
		runner.TuneGC() // as the stack's own processes do
		tmp, err := os.MkdirTemp("", "loadbench-")
		if err != nil {
			fail(err)
		}
		defer os.RemoveAll(tmp)
		*mailDir = filepath.Join(tmp, "mail")
		s, err := startStack(ctx, tmp, map[string]string{"DATABASE_URL": *db, "DATABASE_READ_URL": *readDB, "MAIL_DIR": *mailDir})
		if err != nil {
			fail(err)
		}
		defer s.Close()
		*base = s.URL
		fmt.Fprintf(os.Stderr, "stack on %s, DATABASE_URL %s, DATABASE_READ_URL %q\n", s.URL, *db, *readDB)
	}
	t0 := time.Now()
	fx, err := Setup(ctx, SetupConfig{BaseURL: *base, Users: *users, Prefix: *prefix, Password: *password, MailDir: *mailDir, Marks: *marks, Market: *market})
	if err != nil {
		fail(fmt.Errorf("setup: %w", err))
	}
	fmt.Fprintf(os.Stderr, "setup: %d users, %d project ids, %s\n", len(fx.Users), len(fx.Projects), time.Since(t0).Round(time.Millisecond))
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fail(err)
		}
		go func() {
			time.Sleep(*warmup)
			_ = pprof.StartCPUProfile(f)
		}()
		defer func() { pprof.StopCPUProfile(); f.Close() }()
	}
	pgBefore, pgOK := backendCPU(ctx, *db)
	cpu0 := selfCPU()
	rep := Run(ctx, Config{BaseURL: *base, Rates: r, Duration: *duration, Warmup: *warmup, Seed: *seed}, fx)
	who := "load generator"
	if *start {
		who = "stack + load generator (one process)"
	}
	rep.CPU = append(rep.CPU, CPUUse{who, selfCPU() - cpu0})
	if pgAfter, ok := backendCPU(ctx, *db); ok && pgOK {
		rep.CPU = append(rep.CPU, CPUUse{"PostgreSQL backends of -db", cpuSince(pgBefore, pgAfter)})
	}
	rep.Print(os.Stdout)
}

// startStack runs the whole stack in this process, as make run does, with
// vars over the environment.
func startStack(ctx context.Context, dir string, vars map[string]string) (*stack.Stack, error) {
	for k, v := range map[string]string{"HTTP_ADDR": "127.0.0.1:0", "DEMO_DATA": "0", "LOG_LEVEL": "error", "WEB_DIR": dir} {
		if _, ok := vars[k]; !ok {
			vars[k] = v
		}
	}
	getenv := func(k string) string {
		if v, ok := vars[k]; ok {
			return v
		}
		return os.Getenv(k)
	}
	sctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	return stack.Start(sctx, stack.Options{Getenv: getenv, DataDir: dir, Quiet: true})
}

// parseRates reads "search=500,mark=10".
func parseRates(s string) (map[string]float64, error) {
	out := map[string]float64{}
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		rate, err := strconv.ParseFloat(v, 64)
		if !ok || err != nil || rate < 0 {
			return nil, fmt.Errorf("-rate: %q is not kind=requests/s", part)
		}
		known := false
		for _, kk := range Kinds {
			known = known || kk == k
		}
		if !known {
			return nil, fmt.Errorf("-rate: unknown kind %q (kinds: %s)", k, strings.Join(Kinds, ", "))
		}
		out[k] = rate
	}
	return out, nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "load:", err)
	os.Exit(1)
}
