package postgres

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"bidradar/services/projects/internal/demo"
	"bidradar/services/projects/internal/domain"
)

// countSampleScan is how the planner counted before the sample had an
// index: every row through domain.Matcher, every keyword a substring
// search of every title. It is the reference for sampleIndex.count and the
// "before" of BenchmarkPlannerEstimate.
func countSampleScan(rows []domain.Project, c domain.Criteria, t domain.Terms) sampleCounts {
	m := domain.NewMatcher(c)
	fm := domain.NewMatcher(domain.Criteria{Provinces: c.Provinces, Statuses: c.Statuses, Methods: c.Methods})
	var wc domain.Criteria
	if len(c.Provinces) == 1 {
		wc.Provinces = c.Provinces
	}
	wm := domain.NewMatcher(wc)
	s := sampleCounts{rows: len(rows), termHits: make([]int, len(t.All))}
	dueFrom, dueTo, dueFilter := c.DueRange()
	for i := range rows {
		p := &rows[i]
		if m.Match(p) {
			s.hits++
		}
		if dueFilter && p.SubmissionDue != nil {
			if d := domain.DateKey(*p.SubmissionDue); !d.Before(dueFrom) && !d.After(dueTo) {
				s.dueHits++
			}
		}
		if wm.Match(p) {
			s.walkHits++
		}
		if !fm.Match(p) {
			continue
		}
		for j, k := range t.All {
			if strings.Contains(p.SearchText, k) {
				s.termHits[j]++
			}
		}
		for _, k := range t.Any {
			if strings.Contains(p.SearchText, k) {
				s.anyHits++
				break
			}
		}
	}
	return s
}

var sampleToday = time.Date(2026, 9, 30, 0, 0, 0, 0, domain.Bangkok)

// testSample is a sample of 10 000 generated projects, spread over a table
// of 1 M (every 100th), as the planner holds it.
func testSample(tb testing.TB) []domain.Project {
	tb.Helper()
	g := demo.New(42, sampleToday)
	rows := make([]domain.Project, 10_000)
	for i := range rows {
		rows[i] = g.Project(i * 100)
	}
	return rows
}

// searchMix is bench/search's mix of Thai queries.
func searchMix() []domain.Criteria {
	kw := func(k string) domain.Criteria { return domain.Criteria{Keyword: k} }
	return []domain.Criteria{
		kw("บ้านวังช้าง"), kw("โดรนเพื่อการเกษตร"), kw("ยาว 999 เมตร"),
		kw("ซื้อ"), kw("ก่อสร้าง"), kw("โดยวิธีเฉพาะเจาะจง"),
		kw("รถ"), kw("นม"), kw("ฝา"),
		kw("คอมพิว"), kw("ประกวดรา"), kw("อิเล็กทรอ"),
		kw("สร้างถนน"), kw("ซื้อวัสดุ"), kw("หมู่ที่ 5 ตำบล"),
		{AllOf: []string{"ถนน", "หมู่ที่ 5"}}, {AllOf: []string{"ซ่อม", "รถ"}},
		{AnyOf: []string{"โดรน", "กล้องวงจรปิด", "เครื่องปรับอากาศ"}}, {AnyOf: []string{"ฝาย", "บ่อบาดาล", "ประปา"}},
		{Keyword: "ถนน", NoneOf: []string{"ลูกรัง"}}, {Keyword: "ซื้อ", NoneOf: []string{"วัสดุ", "ครุภัณฑ์"}},
		{Keyword: "ถนน", Provinces: []string{"40"}, Methods: []string{"16"}},
		{Keyword: "ซื้อ", Statuses: []string{"open"}},
		{Keyword: "รถ", Provinces: []string{"10", "50"}},
		{Sort: domain.SortDeadline, Today: sampleToday},
		{ClosingWithin: 7, Today: sampleToday},
		{Keyword: "ก่อสร้าง", Sort: domain.SortDeadline, ClosingWithin: 7, Today: sampleToday},
		{Keyword: "ถนน", Sort: domain.SortDeadline, Today: sampleToday},
	}
}

// The indexed counts are the scan's, for the bench mix and for random
// criteria: keywords cut from the sample's own titles (1–8 characters,
// across words, with digits and spaces), and ones it does not hold, with
// and without filters and deadlines. So every plan decision is unchanged.
func TestSampleIndexCountsAsScan(t *testing.T) {
	t.Parallel()
	rows := testSample(t)
	ix := newSampleIndex(rows, 1_000_000)
	check := func(c domain.Criteria) {
		t.Helper()
		terms := c.Terms()
		got, want := ix.count(c, terms), countSampleScan(rows, c, terms)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("criteria %+v:\nindexed %+v\nscan    %+v", c, got, want)
		}
		// again, from the keyword cache
		if again := ix.count(c, terms); !reflect.DeepEqual(again, want) {
			t.Fatalf("criteria %+v, cached: %+v, want %+v", c, again, want)
		}
	}
	for _, c := range searchMix() {
		check(c)
	}
	// random criteria on a smaller sample (the scan is slow)
	rows = rows[:3000]
	ix = newSampleIndex(rows, 1_000_000)
	r := rand.New(rand.NewPCG(1, 2))
	cut := func() string {
		rs := []rune(rows[r.IntN(len(rows))].SearchText)
		n := 1 + r.IntN(8)
		if len(rs) <= n {
			return string(rs)
		}
		i := r.IntN(len(rs) - n)
		return string(rs[i : i+n])
	}
	absent := []string{"ไม่มีในนี้เลย", "zz", "q", "๙๙๙๙๙", "ถนนถนนถนน"}
	term := func() string {
		if r.IntN(10) == 0 {
			return absent[r.IntN(len(absent))]
		}
		return cut()
	}
	terms := func(max int) []string {
		out := make([]string, r.IntN(max+1))
		for i := range out {
			out[i] = term()
		}
		return out
	}
	for range 600 {
		c := domain.Criteria{AllOf: terms(2), AnyOf: terms(3), NoneOf: terms(2)}
		if r.IntN(2) == 0 {
			c.Keyword = term()
		}
		if r.IntN(3) == 0 {
			p := rows[r.IntN(len(rows))]
			c.Provinces = []string{p.ProvinceCode}
			if r.IntN(2) == 0 {
				c.Provinces = append(c.Provinces, rows[r.IntN(len(rows))].ProvinceCode)
			}
			if r.IntN(2) == 0 {
				c.Methods = []string{p.MethodCode}
			}
			if r.IntN(2) == 0 {
				c.Statuses = []string{string(p.Status)}
			}
		}
		if r.IntN(10) == 0 { // a value no sample row holds
			c.Methods = append(c.Methods, "no-such-method")
		}
		if r.IntN(5) == 0 {
			c.Today, c.ClosingWithin = sampleToday, 1+r.IntN(30)
		}
		if r.IntN(8) == 0 { // an explicit deadline range, empty at times
			from := sampleToday.AddDate(0, 0, r.IntN(60)-30)
			to := from.AddDate(0, 0, r.IntN(40)-5)
			c.DueFrom, c.DueTo = &from, &to
		}
		check(c)
	}
	// an empty sample counts nothing
	if s := newSampleIndex(nil, 0).count(domain.Criteria{Keyword: "ถนน"}, domain.Terms{All: []string{"ถนน"}}); s.rows != 0 || s.hits != 0 || s.termHits[0] != 0 {
		t.Fatalf("empty sample: %+v", s)
	}
}

// The keyword cache is bounded: past maxTerms it starts again, and
// answers stay right.
func TestSampleIndexCacheBounded(t *testing.T) {
	t.Parallel()
	rows := testSample(t)[:500]
	ix := newSampleIndex(rows, 500)
	for i := range maxCachedTerms + 10 {
		ix.rowsWith("ไม่มี" + strings.Repeat("ก", i%50) + string(rune('a'+i%26)) + string(rune('0'+i/26%10)) + string(rune('A'+i/260%26)))
	}
	if n := len(ix.terms); n > ix.maxTerms() {
		t.Fatalf("%d cached keywords, want ≤ %d", n, ix.maxTerms())
	}
	c := domain.Criteria{Keyword: "ซื้อ"}
	if got, want := ix.count(c, c.Terms()), countSampleScan(rows, c, c.Terms()); !reflect.DeepEqual(got, want) {
		t.Fatalf("after the cache was reset: %+v, want %+v", got, want)
	}
}

// BenchmarkPlannerEstimate times the planner's counts for bench/search's
// mix (one op = the 28 criteria), over a sample of 10 000 generated
// titles: the scan of every title (before), the index with its keyword
// cache (searches repeating keywords, the steady state), and the index
// with the cache dropped before each op (every keyword new).
//
//	go test ./internal/adapters/postgres -run '^$' -bench PlannerEstimate
func BenchmarkPlannerEstimate(b *testing.B) {
	rows := testSample(b)
	mix := searchMix()
	terms := make([]domain.Terms, len(mix))
	for i, c := range mix {
		terms[i] = c.Terms()
	}
	b.Run("scan", func(b *testing.B) {
		for b.Loop() {
			for i, c := range mix {
				countSampleScan(rows, c, terms[i])
			}
		}
	})
	ix := newSampleIndex(rows, 1_000_000)
	b.Run("index", func(b *testing.B) {
		for b.Loop() {
			for i, c := range mix {
				ix.count(c, terms[i])
			}
		}
	})
	b.Run("index-uncached", func(b *testing.B) {
		for b.Loop() {
			ix.mu.Lock()
			ix.terms = map[string]bitset{}
			ix.mu.Unlock()
			for i, c := range mix {
				ix.count(c, terms[i])
			}
		}
	})
	b.Run("build", func(b *testing.B) {
		for b.Loop() {
			newSampleIndex(rows, 1_000_000)
		}
	})
}
