// Command search benchmarks BidRadar's Thai search: it loads N generated
// projects into a fresh database, runs a fixed mix of Thai queries through
// the ListProjects HTTP endpoint (Connect JSON, the handler the gateway's
// REST route calls), the naive `name ILIKE '%kw%'` scan on the same data,
// and checks recall against a brute-force in-memory oracle.
//
//	cd bench/search && GOWORK=off go run . -n 1000000
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
	"strings"
	"time"

	"bidradar/pkg/pgdb"
	"bidradar/services/projects/benchkit"
	"bidradar/services/projects/projectssvc"
)

type query struct {
	class string
	body  map[string]any
	c     benchkit.Criteria
}

func mix() []query {
	kw := func(class, k string) query {
		return query{class, map[string]any{"keyword": k}, benchkit.Criteria{Keyword: k}}
	}
	return []query{
		kw("rare", "บ้านวังช้าง"), kw("rare", "โดรนเพื่อการเกษตร"), kw("rare", "ยาว 999 เมตร"),
		kw("common", "ซื้อ"), kw("common", "ก่อสร้าง"), kw("common", "โดยวิธีเฉพาะเจาะจง"),
		kw("2-char", "รถ"), kw("2-char", "นม"), kw("2-char", "ฝา"),
		kw("partial", "คอมพิว"), kw("partial", "ประกวดรา"), kw("partial", "อิเล็กทรอ"),
		kw("boundary", "สร้างถนน"), kw("boundary", "ซื้อวัสดุ"), kw("boundary", "หมู่ที่ 5 ตำบล"),
		{"and", map[string]any{"keyWord_Incl_And": []string{"ถนน", "หมู่ที่ 5"}}, benchkit.Criteria{AllOf: []string{"ถนน", "หมู่ที่ 5"}}},
		{"and", map[string]any{"keyWord_Incl_And": []string{"ซ่อม", "รถ"}}, benchkit.Criteria{AllOf: []string{"ซ่อม", "รถ"}}},
		{"or3", map[string]any{"keyWord_Incl_Or": []string{"โดรน", "กล้องวงจรปิด", "เครื่องปรับอากาศ"}}, benchkit.Criteria{AnyOf: []string{"โดรน", "กล้องวงจรปิด", "เครื่องปรับอากาศ"}}},
		{"or3", map[string]any{"keyWord_Incl_Or": []string{"ฝาย", "บ่อบาดาล", "ประปา"}}, benchkit.Criteria{AnyOf: []string{"ฝาย", "บ่อบาดาล", "ประปา"}}},
		{"not", map[string]any{"keyword": "ถนน", "keyWord_Excl_Nor": []string{"ลูกรัง"}}, benchkit.Criteria{Keyword: "ถนน", NoneOf: []string{"ลูกรัง"}}},
		{"not", map[string]any{"keyword": "ซื้อ", "keyWord_Excl_Nor": []string{"วัสดุ", "ครุภัณฑ์"}}, benchkit.Criteria{Keyword: "ซื้อ", NoneOf: []string{"วัสดุ", "ครุภัณฑ์"}}},
		{"filters", map[string]any{"keyword": "ถนน", "province_User": []string{"40"}, "method_User_required": []string{"16"}}, benchkit.Criteria{Keyword: "ถนน", Provinces: []string{"40"}, Methods: []string{"16"}}},
		{"filters", map[string]any{"keyword": "ซื้อ", "projectStatus_User": []string{"open"}}, benchkit.Criteria{Keyword: "ซื้อ", Statuses: []string{"open"}}},
		{"filters", map[string]any{"keyword": "รถ", "province_User": []string{"10", "50"}}, benchkit.Criteria{Keyword: "รถ", Provinces: []string{"10", "50"}}},
		// deadlines, counted from benchkit.Today: the deadline order (its first part walks the
		// deadline btree), closing this week, and a keyword in the deadline order
		{"deadline", map[string]any{"sort": "deadline"}, benchkit.Criteria{Sort: "deadline"}},
		{"deadline", map[string]any{"closing_within_days": 7}, benchkit.Criteria{ClosingWithin: 7}},
		{"deadline", map[string]any{"keyword": "ก่อสร้าง", "sort": "deadline", "closing_within_days": 7}, benchkit.Criteria{Keyword: "ก่อสร้าง", Sort: "deadline", ClosingWithin: 7}},
		{"deadline", map[string]any{"keyword": "ถนน", "sort": "deadline"}, benchkit.Criteria{Keyword: "ถนน", Sort: "deadline"}},
	}
}

func pct(ds []time.Duration, p float64) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(p*float64(len(s))+0.999999) - 1
	if i < 0 {
		i = 0
	}
	return s[i]
}

func main() {
	n := flag.Int("n", 1000000, "projects to load")
	reps := flag.Int("reps", 20, "runs of each query")
	naiveReps := flag.Int("naive-reps", 2, "runs of each naive query")
	dbURL := flag.String("db", "", "database URL (default: a fresh bench_search_<n> on 127.0.0.1)")
	skipLoad := flag.Bool("skip-load", false, "reuse the loaded database")
	loadOnly := flag.Bool("load-only", false, "load and exit")
	explain := flag.String("explain", "", "print EXPLAIN (ANALYZE, BUFFERS) of the queries of this class (\"all\": every class) and exit")
	flag.Parse()
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if *dbURL == "" {
		*dbURL = fmt.Sprintf("postgres://postgres@127.0.0.1:5432/bench_search_%d?sslmode=disable", *n)
	}
	if !*skipLoad {
		if err := pgdb.EnsureDatabase(ctx, *dbURL); err != nil {
			fail(err)
		}
	}
	pool, err := projectssvc.Open(ctx, *dbURL)
	if err != nil {
		fail(err)
	}
	defer pool.Close()
	if !*skipLoad {
		if _, err := pool.Exec(ctx, "TRUNCATE projects"); err != nil {
			fail(err)
		}
		start := time.Now()
		err := benchkit.Load(ctx, pool, 42, *n, func(done int) {
			fmt.Fprintf(os.Stderr, "\rloading %d/%d (%.0f rows/s)", done, *n, float64(done)/time.Since(start).Seconds())
		})
		if err != nil {
			fail(err)
		}
		fmt.Printf("\nloaded %d projects in %s (COPY + GIN build)\n", *n, time.Since(start).Round(time.Second))
		if *loadOnly {
			return
		}
	}
	var size string
	pool.QueryRow(ctx, "SELECT pg_size_pretty(pg_relation_size('projects_search_grams_idx')) || ' trigram GIN, ' || pg_size_pretty(pg_total_relation_size('projects')) || ' total'").Scan(&size)
	fmt.Println("index sizes:", size)

	if *explain != "" {
		for _, q := range mix() {
			if *explain != "all" && *explain != q.class {
				continue
			}
			plan, out, err := benchkit.Explain(ctx, pool, q.c, 10)
			if err != nil {
				fail(err)
			}
			label, _ := json.Marshal(q.body)
			fmt.Printf("=== %s %s plan=%s\n%s\n\n", q.class, label, plan, strings.Join(out, "\n---\n"))
		}
		return
	}
	h, err := benchkit.Handler(pool, log)
	if err != nil {
		fail(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail(err)
	}
	go http.Serve(ln, h)
	url := "http://" + ln.Addr().String() + "/projects.v1.ProjectsService/ListProjects"
	client := &http.Client{Timeout: 120 * time.Second}
	call := func(body map[string]any) (map[string]any, time.Duration) {
		b, _ := json.Marshal(body)
		start := time.Now()
		resp, err := client.Post(url, "application/json", bytes.NewReader(b))
		if err != nil {
			fail(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		el := time.Since(start)
		if resp.StatusCode != 200 {
			fail(fmt.Errorf("status %d: %s", resp.StatusCode, raw))
		}
		var out map[string]any
		json.Unmarshal(raw, &out)
		return out, el
	}

	fmt.Fprintln(os.Stderr, "building oracle…")
	oracle := benchkit.NewOracle(42, *n)
	qs := mix()
	byClass := map[string][]time.Duration{}
	var all, naiveAll []time.Duration
	naiveByClass := map[string][]time.Duration{}
	recallHit, recallWant, totalsOK := 0, 0, 0
	var estErr []float64
	var classes []string
	fmt.Printf("\n%-9s %-40s %9s %6s %9s %9s %9s\n", "class", "query", "matches", "plan?", "p50", "p95", "naive")
	for _, q := range qs {
		q.body["per_page"] = 10
		// warm-up, recall check
		out, _ := call(q.body)
		wantTotal, wantIDs := oracle.Search(q.c, 10)
		var gotIDs []string
		if data, ok := out["data"].([]any); ok {
			for _, d := range data {
				gotIDs = append(gotIDs, d.(map[string]any)["projectId"].(string))
			}
		}
		set := map[string]bool{}
		for _, id := range gotIDs {
			set[id] = true
		}
		for i, id := range wantIDs {
			recallWant++
			if set[id] && i < len(gotIDs) && gotIDs[i] == id {
				recallHit++
			}
		}
		pag, _ := out["pagination"].(map[string]any)
		var total float64
		if v, ok := pag["total"]; ok {
			switch t := v.(type) {
			case string:
				fmt.Sscan(t, &total)
			case float64:
				total = t
			}
		}
		est := pag["totalIsEstimate"] == true
		if (!est && int(total) == wantTotal) || (est && wantTotal > benchkit.TotalCap) {
			totalsOK++
		}
		if est && wantTotal > 0 {
			estErr = append(estErr, total/float64(wantTotal))
		}
		var ds []time.Duration
		for i := 0; i < *reps; i++ {
			_, el := call(q.body)
			ds = append(ds, el)
		}
		var nd []time.Duration
		for i := 0; i < *naiveReps; i++ {
			el, err := benchkit.Naive(ctx, pool, q.c, 10)
			if err != nil {
				fail(err)
			}
			nd = append(nd, el)
		}
		if _, ok := byClass[q.class]; !ok {
			classes = append(classes, q.class)
		}
		byClass[q.class] = append(byClass[q.class], ds...)
		naiveByClass[q.class] = append(naiveByClass[q.class], nd...)
		all = append(all, ds...)
		naiveAll = append(naiveAll, nd...)
		label, _ := json.Marshal(q.body)
		desc := strings.TrimSuffix(strings.TrimPrefix(string(label), "{"), "}")
		if len([]rune(desc)) > 40 {
			desc = string([]rune(desc)[:40])
		}
		mark := ""
		if est {
			mark = "~"
		}
		fmt.Printf("%-9s %-40s %8s%d %6v %9s %9s %9s\n", q.class, desc, mark, wantTotal, est, pct(ds, .5).Round(10*time.Microsecond), pct(ds, .95).Round(10*time.Microsecond), pct(nd, .5).Round(time.Millisecond))
	}
	fmt.Printf("\n%-9s %9s %9s %9s %11s %7s\n", "class", "p50", "p95", "p99", "naive p50", "ratio")
	for _, c := range classes {
		ds := byClass[c]
		fmt.Printf("%-9s %9s %9s %9s %11s %6.0fx\n", c, pct(ds, .5).Round(10*time.Microsecond), pct(ds, .95).Round(10*time.Microsecond), pct(ds, .99).Round(10*time.Microsecond),
			pct(naiveByClass[c], .5).Round(time.Millisecond), float64(pct(naiveByClass[c], .5))/float64(pct(ds, .5)))
	}
	fmt.Printf("%-9s %9s %9s %9s %11s %6.0fx\n", "ALL", pct(all, .5).Round(10*time.Microsecond), pct(all, .95).Round(10*time.Microsecond), pct(all, .99).Round(10*time.Microsecond),
		pct(naiveAll, .5).Round(time.Millisecond), float64(pct(naiveAll, .5))/float64(pct(all, .5)))
	fmt.Printf("\nrecall (first page, same order) vs brute-force oracle: %d/%d = %.1f %%; totals right: %d/%d\n",
		recallHit, recallWant, 100*float64(recallHit)/float64(max(recallWant, 1)), totalsOK, len(qs))
	if len(estErr) > 0 {
		sort.Float64s(estErr)
		fmt.Printf("estimated totals (above the %d cap): %d, estimate/true from %.2f to %.2f (median %.2f)\n", benchkit.TotalCap, len(estErr), estErr[0], estErr[len(estErr)-1], estErr[len(estErr)/2])
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bench:", err)
	os.Exit(1)
}
