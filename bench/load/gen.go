package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Request kinds.
const (
	KindSearch  = "search"  // GET /gen-infor, signed out, bench/search's mix
	KindListing = "listing" // GET /gen-infor signed in: a listing flag, or a page with the user's marks
	KindDetails = "details" // GET /projects/{id} (signed in)
	KindMarket  = "market"  // GET /market/benchmarks (signed in)
	KindMark    = "mark"    // PATCH /userInterests/{id}: a like toggled, or a follow with fill20
)

// Kinds in report order.
var Kinds = []string{KindSearch, KindListing, KindDetails, KindMarket, KindMark}

// request is one request of a kind, built from the fixture.
type request struct {
	method, path, body, token string
}

// Sample is one request's outcome.
type Sample struct {
	Kind      string
	Scheduled time.Time     // when the clock said to send it
	Lag       time.Duration // sent − scheduled (the generator's own delay)
	Latency   time.Duration // done − scheduled: queueing anywhere counts
	Status    int           // 0: transport error
	Err       string
}

// Config is a run: a fixed rate per kind (requests/s; 0 leaves a kind out)
// for Duration after Warmup (offered, not recorded).
type Config struct {
	BaseURL  string // the gateway's origin, e.g. http://127.0.0.1:8080
	Rates    map[string]float64
	Duration time.Duration
	Warmup   time.Duration
	Seed     uint64
	// MaxInFlight bounds the requests outstanding; a request the clock
	// sends beyond it is counted as dropped by the generator (not sent).
	MaxInFlight int
	Timeout     time.Duration // per request
}

// Run offers cfg's rates in open loop: each kind has its own clock, one
// request every 1/rate s whatever the answers, and every latency is
// measured from the request's scheduled time, so a server that falls
// behind shows its queue in the latencies instead of slowing the offer.
func Run(ctx context.Context, cfg Config, fx *Fixture) *Report {
	if cfg.MaxInFlight <= 0 {
		cfg.MaxInFlight = 20000
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	tr := &http.Transport{MaxIdleConns: 4096, MaxIdleConnsPerHost: 4096, IdleConnTimeout: 90 * time.Second}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: cfg.Timeout}
	start := time.Now().Add(50 * time.Millisecond)
	measureFrom := start.Add(cfg.Warmup)
	end := measureFrom.Add(cfg.Duration)

	rep := &Report{Config: cfg, Notes: append([]string(nil), fx.Notes...)}
	var mu sync.Mutex
	var inflight, answered atomic.Int64
	var wg sync.WaitGroup
	dropped := map[string]int{}
	for ki, kind := range Kinds {
		rate := cfg.Rates[kind]
		if rate <= 0 {
			continue
		}
		if fx.Skip[kind] != "" {
			continue
		}
		rep.Offered = append(rep.Offered, KindRate{kind, rate})
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(cfg.Seed, uint64(ki)))
			interval := time.Duration(float64(time.Second) / rate)
			// Each kind's clock starts at a random phase so kinds do not fire together.
			next := start.Add(time.Duration(rng.Int64N(int64(interval))))
			for i := 0; ; i++ {
				at := next
				next = next.Add(interval)
				if !at.Before(end) || ctx.Err() != nil {
					return
				}
				if d := time.Until(at); d > 0 {
					time.Sleep(d)
				}
				measured := !at.Before(measureFrom)
				if inflight.Load() >= int64(cfg.MaxInFlight) {
					if measured {
						mu.Lock()
						dropped[kind]++
						mu.Unlock()
					}
					continue
				}
				req := fx.next(kind, rng, i)
				inflight.Add(1)
				wg.Add(1)
				go func() {
					defer wg.Done()
					defer inflight.Add(-1)
					s := do(ctx, client, cfg.BaseURL, kind, at, req)
					if s.Status > 0 {
						answered.Add(1)
					}
					if measured {
						mu.Lock()
						rep.Samples = append(rep.Samples, s)
						mu.Unlock()
					}
				}()
			}
		}()
	}
	wg.Wait()
	rep.Dropped, rep.Answered = dropped, int(answered.Load())
	rep.summarise()
	return rep
}

// do sends one request and times it from its scheduled time.
func do(ctx context.Context, client *http.Client, base, kind string, at time.Time, r request) Sample {
	s := Sample{Kind: kind, Scheduled: at, Lag: time.Since(at)}
	var body io.Reader
	if r.body != "" {
		body = strings.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, base+"/app/backend/api/v1"+r.path, body)
	if err != nil {
		s.Err = err.Error()
		return s
	}
	if r.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if r.token != "" {
		req.Header.Set("Authorization", "Bearer "+r.token)
	}
	resp, err := client.Do(req)
	if err != nil {
		s.Latency, s.Err = time.Since(at), err.Error()
		return s
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	s.Latency, s.Status = time.Since(at), resp.StatusCode
	if resp.StatusCode >= 300 {
		s.Err = fmt.Sprintf("%d %s", resp.StatusCode, firstLine(string(raw)))
	}
	return s
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 160 {
		s = s[:160]
	}
	return s
}

// searchMix is bench/search's mix of Thai queries (24 keyword queries in 9
// classes and 4 deadline queries), as gen-infor query strings.
func searchMix() []url.Values {
	q := func(kv ...string) url.Values {
		v := url.Values{"per_page": {"10"}}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Add(kv[i], kv[i+1])
		}
		return v
	}
	kw := func(k string) url.Values { return q("keyword", k) }
	return []url.Values{
		kw("บ้านวังช้าง"), kw("โดรนเพื่อการเกษตร"), kw("ยาว 999 เมตร"),
		kw("ซื้อ"), kw("ก่อสร้าง"), kw("โดยวิธีเฉพาะเจาะจง"),
		kw("รถ"), kw("นม"), kw("ฝา"),
		kw("คอมพิว"), kw("ประกวดรา"), kw("อิเล็กทรอ"),
		kw("สร้างถนน"), kw("ซื้อวัสดุ"), kw("หมู่ที่ 5 ตำบล"),
		q("keyWord_Incl_And", "ถนน", "keyWord_Incl_And", "หมู่ที่ 5"),
		q("keyWord_Incl_And", "ซ่อม", "keyWord_Incl_And", "รถ"),
		q("keyWord_Incl_Or", "โดรน", "keyWord_Incl_Or", "กล้องวงจรปิด", "keyWord_Incl_Or", "เครื่องปรับอากาศ"),
		q("keyWord_Incl_Or", "ฝาย", "keyWord_Incl_Or", "บ่อบาดาล", "keyWord_Incl_Or", "ประปา"),
		q("keyword", "ถนน", "keyWord_Excl_Nor", "ลูกรัง"),
		q("keyword", "ซื้อ", "keyWord_Excl_Nor", "วัสดุ", "keyWord_Excl_Nor", "ครุภัณฑ์"),
		q("keyword", "ถนน", "province_User", "40", "method_User_required", "16"),
		q("keyword", "ซื้อ", "projectStatus_User", "open"),
		q("keyword", "รถ", "province_User", "10", "province_User", "50"),
		q("sort", "deadline"),
		q("closing_within_days", "7"),
		q("keyword", "ก่อสร้าง", "sort", "deadline", "closing_within_days", "7"),
		q("keyword", "ถนน", "sort", "deadline"),
	}
}

// listingMix: the six listing flags alone and with keywords or provinces
// (bench/listing's mix), and plain signed-in pages (row marks only).
func listingMix() []url.Values {
	var out []url.Values
	for _, f := range []string{"is_userLike", "is_interestToStepChk", "is_fill20", "is_InterestToBid", "is_archived", "is_comment"} {
		out = append(out,
			url.Values{f: {"true"}, "per_page": {"10"}},
			url.Values{f: {"true"}, "per_page": {"10"}, "keyWord_Incl_Or": {"ถนน", "ซื้อ"}},
			url.Values{f: {"true"}, "per_page": {"10"}, "sort": {"budget"}, "province_User": {"10", "40", "50"}})
	}
	return append(out, url.Values{"per_page": {"10"}}, url.Values{"per_page": {"10"}, "keyWord_Incl_Or": {"ถนน"}})
}

// marketMix: benchmarks for the search filters users would ask about.
func marketMix() []url.Values {
	return []url.Values{
		{"keyword": {"ถนน"}},
		{"keyword": {"ก่อสร้าง"}, "province_User": {"40"}},
		{"keyword": {"ซื้อ"}, "method_User_required": {"16"}},
		{"keyWord_Incl_Or": {"คอมพิวเตอร์", "เครื่องปรับอากาศ"}},
		{"province_User": {"10"}},
	}
}
