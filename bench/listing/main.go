// Command listing benchmarks gen-infor's per-user listing filters (issue 9):
// one user with M marked projects among N, a filtered page through the
// projects ListProjects endpoint (Connect JSON), which asks the interests
// service (over gRPC, loopback h2c) for the user's project ids and marks.
//
//	cd bench/listing && GOWORK=off go run . -n 1000000 -marks 5000
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sort"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"bidradar/pkg/authn"
	"bidradar/pkg/pgdb"
	interestskit "bidradar/services/interests/benchkit"
	"bidradar/services/projects/benchkit"
	"bidradar/services/projects/projectssvc"
)

const user = "bench-user"

func pct(ds []time.Duration, p float64) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(p*float64(len(s))+0.999999) - 1
	if i < 0 {
		i = 0
	}
	return s[i]
}

func serve(h http.Handler) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail(err)
	}
	var p http.Protocols
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true)
	srv := &http.Server{Handler: h, Protocols: &p}
	go srv.Serve(ln)
	return ln.Addr().String()
}

func main() {
	n := flag.Int("n", 1000000, "projects (reuses bench_search_<n> when it is loaded)")
	marks := flag.Int("marks", 5000, "the user's marked projects")
	reps := flag.Int("reps", 30, "runs of each query")
	flag.Parse()
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	dbURL := fmt.Sprintf("postgres://postgres@127.0.0.1:5432/bench_search_%d?sslmode=disable", *n)
	if err := pgdb.EnsureDatabase(ctx, dbURL); err != nil {
		fail(err)
	}
	pool, err := projectssvc.Open(ctx, dbURL)
	if err != nil {
		fail(err)
	}
	defer pool.Close()
	have := loadProjects(ctx, pool, *n)
	ipool, err := interestskit.Open(ctx, dbURL)
	if err != nil {
		fail(err)
	}
	defer ipool.Close()
	marked := markProjects(ctx, pool, ipool, *marks)
	fmt.Printf("user %s marks %d of %d projects\n", user, marked, have)
	call := listing(pool, ipool, log)
	filtered, plain := queries()
	run(call, filtered, plain, *reps)
}

// loadProjects loads n generated projects unless the database holds as
// many already; it returns how many there are.
func loadProjects(ctx context.Context, pool *pgxpool.Pool, n int) int {
	var have int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM projects").Scan(&have); err != nil {
		fail(err)
	}
	if have >= n {
		return have
	}
	if _, err := pool.Exec(ctx, "TRUNCATE projects"); err != nil {
		fail(err)
	}
	start := time.Now()
	if err := benchkit.Load(ctx, pool, 42, n, func(done int) {
		fmt.Fprintf(os.Stderr, "\rloading %d/%d", done, n)
	}); err != nil {
		fail(err)
	}
	fmt.Printf("\nloaded %d projects in %s\n", n, time.Since(start).Round(time.Second))
	return n
}

// markProjects marks up to marks sampled projects for the user and returns
// how many it marked.
func markProjects(ctx context.Context, pool, ipool *pgxpool.Pool, marks int) int {
	rows, err := pool.Query(ctx, "SELECT id FROM projects TABLESAMPLE SYSTEM (2) REPEATABLE (7) LIMIT $1", marks)
	if err != nil {
		fail(err)
	}
	var ids []string
	for rows.Next() {
		var id string
		_ = rows.Scan(&id)
		ids = append(ids, id)
	}
	rows.Close()
	if err := interestskit.Mark(ctx, ipool, user, ids); err != nil {
		fail(err)
	}
	return len(ids)
}

// listing serves the interests and projects handlers on loopback and
// returns a call of ListProjects as the user: the rows of the page and
// the time it took.
func listing(pool, ipool *pgxpool.Pool, log *slog.Logger) func(body map[string]any) (int, time.Duration) {
	interests := serve(interestskit.Handler(ipool))
	ph, err := benchkit.HandlerWithInterests(pool, log, interests)
	if err != nil {
		fail(err)
	}
	// The caller is the user, as the authn interceptor would have it.
	signedIn := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ph.ServeHTTP(w, r.WithContext(authn.WithClaims(r.Context(), authn.Claims{UserID: user})))
	})
	url := "http://" + serve(signedIn) + "/projects.v1.ProjectsService/ListProjects"
	client := &http.Client{Timeout: time.Minute}
	return func(body map[string]any) (int, time.Duration) {
		b, _ := json.Marshal(body)
		start := time.Now()
		resp, err := client.Post(url, "application/json", bytes.NewReader(b))
		if err != nil {
			fail(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		d := time.Since(start)
		if resp.StatusCode != 200 {
			fail(fmt.Errorf("%d %s", resp.StatusCode, raw))
		}
		var out struct {
			Data []json.RawMessage `json:"data"`
		}
		_ = json.Unmarshal(raw, &out)
		return len(out.Data), d
	}
}

// queries are the filtered pages measured (each listing filter alone, with
// keywords, with a sort and provinces) and the unfiltered pages compared.
func queries() (filtered, plain []map[string]any) {
	for _, f := range []string{"isUserLike", "isInterestToStepChk", "isFill20", "isInterestToBid", "isArchived", "isComment"} {
		filtered = append(filtered,
			map[string]any{f: true, "perPage": 10},
			map[string]any{f: true, "perPage": 10, "keyWordInclOr": []string{"ถนน", "ซื้อ"}},
			map[string]any{f: true, "perPage": 10, "sort": "budget", "provinceUser": []string{"10", "40", "50"}},
		)
	}
	plain = []map[string]any{{"perPage": 10}, {"perPage": 10, "keyWordInclOr": []string{"ถนน"}}}
	return filtered, plain
}

// run times every query reps times after a warm-up and prints the figures.
func run(call func(map[string]any) (int, time.Duration), queries, plain []map[string]any, reps int) {
	for _, q := range append(queries, plain...) { // warm-up
		call(q)
	}
	var all, base []time.Duration
	per := make([][]time.Duration, len(queries))
	rowsSeen := 0
	for r := 0; r < reps; r++ {
		for i, q := range queries {
			k, d := call(q)
			rowsSeen += k
			all = append(all, d)
			per[i] = append(per[i], d)
		}
		for _, q := range plain {
			_, d := call(q)
			base = append(base, d)
		}
	}
	for i, q := range queries {
		b, _ := json.Marshal(q)
		fmt.Printf("  %-90s p50 %8s  p95 %8s\n", b, pct(per[i], .5).Round(10*time.Microsecond), pct(per[i], .95).Round(10*time.Microsecond))
	}
	fmt.Printf("filtered pages (%d queries × %d runs, %d rows): p50 %s  p95 %s  p99 %s\n", len(queries), reps, rowsSeen,
		pct(all, .5).Round(10*time.Microsecond), pct(all, .95).Round(10*time.Microsecond), pct(all, .99).Round(10*time.Microsecond))
	fmt.Printf("unfiltered pages with marks (%d queries × %d runs): p50 %s  p95 %s\n", len(plain), reps,
		pct(base, .5).Round(10*time.Microsecond), pct(base, .95).Round(10*time.Microsecond))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "listing bench:", err)
	os.Exit(1)
}
