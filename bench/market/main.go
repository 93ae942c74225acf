// Command market benchmarks the market service at scale: it generates N
// awarded projects (benchkit.Generate), loads them with their rollups into a
// database of their own, sends a fixed mix of requests through the market's
// Connect handler (JSON over loopback HTTP, the handler behind the gateway's
// REST routes) and checks every figure of every answer against a
// brute-force computation over the same rows (benchkit.Oracle and the
// definitions of docs/market.md#definitions).
//
//	cd bench/market && GOWORK=off go run . -n 1000000
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"sort"
	"time"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	marketv1 "bidradar/gen/market/v1"
	"bidradar/pkg/thaitext"
	"bidradar/services/market/benchkit"
)

type request struct {
	class, method string
	body          proto.Message
	check         func(raw []byte) error
}

func main() {
	n := flag.Int("n", 1_000_000, "awarded projects")
	runs := flag.Int("runs", 20, "timed runs of each request")
	reload := flag.Bool("reload", false, "load again even when the database holds the data")
	base := flag.String("db", "postgres://postgres@127.0.0.1:5432/", "PostgreSQL server URL (the database is bench_market_<n>)")
	flag.Parse()
	ctx := context.Background()
	start := time.Now()
	awards := benchkit.Generate(42, *n)
	logf("generated %d awards in %s", len(awards), time.Since(start).Round(time.Millisecond))
	url := fmt.Sprintf("%sbench_market_%d?sslmode=disable", *base, *n)
	pool, err := benchkit.Open(ctx, url)
	must(err)
	defer pool.Close()
	var have int
	must(pool.QueryRow(ctx, `SELECT count(*) FROM awards`).Scan(&have))
	if have != len(awards) || *reload {
		start = time.Now()
		must(benchkit.Load(ctx, pool, awards, func(s string) { logf("load: %s (%s)", s, time.Since(start).Round(time.Second)) }))
		logf("loaded in %s", time.Since(start).Round(time.Second))
	} else {
		start = time.Now()
		must(benchkit.Refresh(ctx, pool, func(s string) { logf("refresh: %s (%s)", s, time.Since(start).Round(time.Second)) }))
		logf("refreshed in %s", time.Since(start).Round(time.Second))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(err)
	srv := &http.Server{Handler: benchkit.Handler(pool, awards), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	endpoint := "http://" + ln.Addr().String() + "/market.v1.MarketService/"
	client := &http.Client{Timeout: 60 * time.Second}
	call := func(method string, body proto.Message) ([]byte, time.Duration, error) {
		b, err := protojson.Marshal(body)
		if err != nil {
			return nil, 0, err
		}
		t0 := time.Now()
		resp, err := client.Post(endpoint+method, "application/json", bytes.NewReader(b))
		if err != nil {
			return nil, 0, err
		}
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		d := time.Since(t0)
		if resp.StatusCode != 200 {
			return nil, d, fmt.Errorf("%s: %d %s", method, resp.StatusCode, raw)
		}
		return raw, d, err
	}
	reqs := mix(awards)
	times := map[string][]time.Duration{}
	failed := 0
	for _, q := range reqs {
		raw, _, err := call(q.method, q.body) // warm-up, and the oracle's check
		if err == nil {
			err = q.check(raw)
		}
		if err != nil {
			failed++
			logf("WRONG %s %s: %v", q.class, q.body, err)
		}
	}
	for i := 0; i < *runs; i++ {
		for _, q := range reqs {
			_, d, err := call(q.method, q.body)
			must(err)
			times[q.class] = append(times[q.class], d)
		}
	}
	fmt.Printf("\n%d awarded projects, %d requests × %d runs; oracle: %d of %d answers right\n\n", len(awards), len(reqs), *runs, len(reqs)-failed, len(reqs))
	fmt.Println("| class | requests | p50 | p95 | p99 | target p95 |")
	fmt.Println("|---|---:|---:|---:|---:|---:|")
	for _, c := range []struct{ class, target string }{{"keyword+2", "100 ms"}, {"agency", "30 ms"}, {"method", "30 ms"}, {"supplier", "20 ms"}, {"price-guide", "30 ms"}} {
		ds := times[c.class]
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		pct := func(p float64) string {
			if len(ds) == 0 {
				return "-"
			}
			return fmt.Sprintf("%.1f ms", float64(ds[int(math.Ceil(p*float64(len(ds))))-1].Microseconds())/1000)
		}
		if *runs > 0 {
			fmt.Printf("| %s | %d | %s | %s | %s | %s |\n", c.class, len(ds) / *runs, pct(.5), pct(.95), pct(.99), c.target)
		}
	}
	if failed > 0 {
		os.Exit(1)
	}
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func logf(f string, a ...any) { fmt.Fprintf(os.Stderr, time.Now().Format("15:04:05 ")+f+"\n", a...) }

var normalized = map[string]string{}

func contains(name, kw string) bool {
	n, ok := normalized[name]
	if !ok {
		n = thaitext.Normalize(name)
		normalized[name] = n
	}
	return thaitext.Contains(n, thaitext.Normalize(kw))
}

func mix(awards []benchkit.Award) []request {
	var out []request
	bench := func(class string, req *marketv1.GetBenchmarksRequest, keep func(benchkit.Award) bool) {
		out = append(out, request{class, "GetBenchmarks", req, func(raw []byte) error {
			var rows []benchkit.Award
			for _, a := range awards {
				if keep(a) {
					rows = append(rows, a)
				}
			}
			return checkBenchmark(raw, rows)
		}})
	}
	in := func(v string, vs ...string) bool {
		for _, x := range vs {
			if x == v {
				return true
			}
		}
		return false
	}
	for _, q := range []struct {
		kw, method, year, typ, prov string
	}{
		{"ถนน", "16", "2568", "", ""}, {"ขุดลอกคลอง", "19", "", "", "40"}, {"ซื้อวัสดุ", "", "2566", "04", ""},
		{"บ่อบาดาล", "19", "", "02", ""}, {"กล้องวงจรปิด", "15", "2569", "", ""}, {"หมู่ที่ 5", "", "2564", "", "50"},
	} {
		req := &marketv1.GetBenchmarksRequest{Keyword: q.kw}
		if q.method != "" {
			req.Method_UserRequired = []string{q.method}
		}
		if q.year != "" {
			req.BudgetYear_User = []string{q.year}
		}
		if q.typ != "" {
			req.TypeTran_User = []string{q.typ}
		}
		if q.prov != "" {
			req.Province_User = []string{q.prov}
		}
		bench("keyword+2", req, func(a benchkit.Award) bool {
			return contains(a.ProjectName, q.kw) && (q.method == "" || a.MethodCode == q.method) &&
				(q.year == "" || fmt.Sprint(a.BudgetYear) == q.year) && (q.typ == "" || a.TypeCode == q.typ) &&
				(q.prov == "" || a.ProvinceCode == q.prov)
		})
	}
	for _, d := range []string{"1000", "1042", "1150", "1233", "1299"} {
		bench("agency", &marketv1.GetBenchmarksRequest{Dept_User: []string{d}}, func(a benchkit.Award) bool { return a.DeptCode == d })
	}
	for _, m := range []string{"19", "16", "22"} {
		bench("method", &marketv1.GetBenchmarksRequest{Method_UserRequired: []string{m}}, func(a benchkit.Award) bool { return in(a.MethodCode, m) })
	}
	wins := map[string]int{}
	for _, a := range awards {
		wins[a.Winners[0].TaxID]++
	}
	delete(wins, "")
	var ids []string
	for id := range wins {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		return wins[ids[i]] > wins[ids[j]] || wins[ids[i]] == wins[ids[j]] && ids[i] < ids[j]
	})
	pick := append(append([]string(nil), ids[:3]...), ids[len(ids)/10], ids[len(ids)/2], ids[len(ids)-1])
	for _, id := range pick {
		out = append(out, request{"supplier", "GetSupplier", &marketv1.GetSupplierRequest{TaxId: id}, func(raw []byte) error {
			return checkSupplier(raw, id, awards)
		}})
	}
	for i := 0; i < 10; i++ {
		p := awards[(i*7919+13)%len(awards)]
		bid := 0.0
		if p.Reference != nil {
			bid = math.Round(float64(*p.Reference)*0.9) / 100
		}
		out = append(out, request{"price-guide", "GetPriceGuide", &marketv1.GetPriceGuideRequest{ProjectId: p.ProjectID, BidPrice: &bid}, func(raw []byte) error {
			return checkGuide(raw, p, bid, awards)
		}})
	}
	return out
}
