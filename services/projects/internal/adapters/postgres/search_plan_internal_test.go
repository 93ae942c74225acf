package postgres

import (
	"testing"
	"time"

	"bidradar/services/projects/internal/domain"
)

// The plan follows from the sample's counts alone (no database): each plan
// is chosen where it reads the fewest rows. A sample of 10 000 rows stands
// for a table of 1 M; the page needs its first 10 matches.
func TestChoosePlan(t *testing.T) {
	t.Parallel()
	const rows, total, need = 10_000, 1_000_000, 10
	week := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name string
		c    domain.Criteria
		t    domain.Terms
		s    sampleCounts
		want string
	}{
		{"no keyword: PostgreSQL chooses", domain.Criteria{Sort: domain.SortDate},
			domain.Terms{}, sampleCounts{rows: rows, hits: rows, walkHits: rows}, PlanPlanner},
		{"only a 1-character keyword: no index finds it, walk", domain.Criteria{Sort: domain.SortDate},
			domain.Terms{All: []string{"ก"}}, sampleCounts{rows: rows, hits: 9_000, walkHits: rows, termHits: []int{9_000}}, PlanWalk},
		{"a keyword the sample barely holds: bitmap", domain.Criteria{Sort: domain.SortDate},
			domain.Terms{All: []string{"โดรน"}}, sampleCounts{rows: rows, hits: 2, walkHits: rows, termHits: []int{2}}, PlanBitmap},
		{"a common keyword: 10 matches are near in date order, walk", domain.Criteria{Sort: domain.SortDate},
			domain.Terms{All: []string{"ก่อสร้าง"}}, sampleCounts{rows: rows, hits: 3_000, walkHits: rows, termHits: []int{3_000}}, PlanWalk},
		{"the rarer of two keywords drives a bitmap", domain.Criteria{Sort: domain.SortDate},
			domain.Terms{All: []string{"ก่อสร้าง", "ฝายชะลอน้ำ"}}, sampleCounts{rows: rows, hits: 5, walkHits: rows, termHits: []int{3_000, 15}}, PlanBitmap},
		{"one province of a common keyword: the province's btree", domain.Criteria{Sort: domain.SortDate, Provinces: []string{"40"}},
			domain.Terms{All: []string{"ก่อสร้าง"}}, sampleCounts{rows: rows, hits: 50, walkHits: 130, termHits: []int{3_000}}, PlanFilter},
		{"relevance of several keywords scores every match: bitmap", domain.Criteria{Sort: domain.SortRelevance},
			domain.Terms{All: []string{"ถนน"}, Any: []string{"คอนกรีต", "ลาดยาง"}}, sampleCounts{rows: rows, hits: 2_000, walkHits: rows, termHits: []int{4_000}, anyHits: 3_000}, PlanBitmap},
		{"a week of deadlines rarer than the keyword: the deadline btree", domain.Criteria{Sort: domain.SortDate, DueFrom: &week, DueTo: &week},
			domain.Terms{All: []string{"ก่อสร้าง"}}, sampleCounts{rows: rows, hits: 3, walkHits: rows, dueHits: 8, termHits: []int{3_000}}, PlanDue},
		{"a deadline range commoner than the keyword: the keyword's bitmap", domain.Criteria{Sort: domain.SortDate, DueFrom: &week},
			domain.Terms{All: []string{"โดรน"}}, sampleCounts{rows: rows, hits: 1, walkHits: rows, dueHits: 4_000, termHits: []int{2}}, PlanBitmap},
		{"an empty sample: every keyword rare", domain.Criteria{Sort: domain.SortDate},
			domain.Terms{All: []string{"ก่อสร้าง"}}, sampleCounts{termHits: []int{0}}, PlanBitmap},
	}
	for _, tc := range cases {
		a := choosePlan(tc.c, tc.t, tc.s, total, need)
		if a.Plan != tc.want {
			t.Errorf("%s: plan %s (drive %d, fraction %.4f), want %s", tc.name, a.Plan, a.Drive, a.Fraction, tc.want)
		}
	}
	// The estimate scales the sample's fraction to the table.
	if a := choosePlan(domain.Criteria{Sort: domain.SortDate}, domain.Terms{All: []string{"ถนน"}},
		sampleCounts{rows: rows, hits: 250, walkHits: rows, termHits: []int{250}}, total, need); a.Estimate != 25_000 || a.Drive != 0 {
		t.Errorf("estimate %.0f drive %d, want 25000 and the one keyword", a.Estimate, a.Drive)
	}
}

// A total is estimated only when the sample puts it above the cap with
// confidence; near the cap it is counted.
func TestEstimableAboveCapWithConfidence(t *testing.T) {
	r := &Repo{opts: Options{TotalCap: 1000}}
	for _, c := range []struct {
		sample, rows int
		table        float64
		want         bool
	}{
		{9970, 10, 1e6, false},  // 583 true matches once drew 10 rows: "about 1,000" was wrong
		{10000, 17, 1e6, false}, // ~1 700, but two deviations below is under the cap
		{10000, 30, 1e6, true},  // ~3 000
		{50000, 29, 1e7, true},  // a keyword, a province and a method at 10 M: ~5 800
		{10000, 9, 1e9, false},  // too few rows to estimate at all
		{10000, 0, 1e7, false},
		{0, 0, 1e7, false},
	} {
		a := Analysis{SampleSize: c.sample}
		if c.sample > 0 {
			a.Fraction = float64(c.rows) / float64(c.sample)
		}
		a.Estimate = a.Fraction * c.table
		if got := r.estimable(a); got != c.want {
			t.Errorf("%d of %d sample rows, table %.0f (estimate %.0f): estimable %v, want %v", c.rows, c.sample, c.table, a.Estimate, got, c.want)
		}
	}
}
