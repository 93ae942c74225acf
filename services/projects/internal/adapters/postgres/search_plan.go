package postgres

import (
	"context"
	"strings"

	"bidradar/pkg/thaitext"
	"bidradar/services/projects/internal/domain"
)

// The plan of a search is chosen from the selectivity of its criteria in
// the in-memory sample (search_sample.go) and forced on PostgreSQL with
// planSettings: its own estimates know nothing of keywords inside titles.

// Plans.
const (
	PlanWalk    = "walk"    // walk the sort-key btree, every condition a filter
	PlanBitmap  = "bitmap"  // bitmap on the rarest keyword, the rest rechecked, then sort
	PlanPlanner = "planner" // no keyword: let PostgreSQL choose (filters only)
	PlanFilter  = "filter"  // walk the (province, date) btree, every other condition a filter
	// PlanIDs reads the listed projects by primary key (a user's marked
	// projects, the listing flags: at most a few thousand), every other
	// condition a filter, then sorts. Walking the date btree for them reads
	// ~need/fraction rows: 20 000 for 455 ids among 1 M.
	PlanIDs = "ids"
	// PlanDue reads the rows of a deadline range by the deadline btree (a
	// week of deadlines is ~500 rows among 1 M), every other condition a
	// filter, then sorts: chosen when the range is rarer than the rarest
	// keyword (a bitmap on "ก่อสร้าง" read 300 000 rows for 155 matches).
	PlanDue = "due"
)

// indexable: the trigram GIN can find a keyword of 2+ characters.
func indexable(term string) bool { return thaitext.RuneLen(term) >= 2 }

// Analysis is the plan decision for a criteria, exposed for benchmarks.
type Analysis struct {
	Plan       string
	Drive      int // index of the driving All term, -1 = the Any group, -2 = none
	Fraction   float64
	Estimate   float64 // estimated matches in the table
	SampleSize int
	gramFreq   map[int32]int32
}

// analyse chooses the plan of c for a page that needs the first need
// matches (ForcePlan, when set, overrides every plan but PlanPlanner).
func (r *Repo) analyse(ctx context.Context, c domain.Criteria, t domain.Terms, need int) (Analysis, error) {
	rows, total, grams, err := r.sample.get(ctx)
	if err != nil {
		return Analysis{}, err
	}
	var a Analysis
	if len(c.ProjectIDs) > 0 && r.opts.ForcePlan == "" {
		// The listed rows are read by key whatever the rest: no estimate
		// needed (matching thousands of ids against the sample cost more
		// than the query).
		a = Analysis{Plan: PlanIDs, Drive: -2}
	} else {
		a = choosePlan(c, t, countSample(rows, c, t), total, need)
	}
	a.SampleSize, a.gramFreq = len(rows), grams
	if r.opts.ForcePlan != "" && a.Plan != PlanPlanner {
		a.Plan = r.opts.ForcePlan
	}
	return a, nil
}

// sampleCounts are the sample rows each plan would read or find.
type sampleCounts struct {
	rows     int   // in the sample
	hits     int   // matching the whole criteria
	walkHits int   // of the single province a filter walk leads with (all rows without one)
	dueHits  int   // with a deadline in the criteria's range
	termHits []int // holding each All keyword, among the rows of the indexed filters
	anyHits  int   // holding one of the Any keywords, among the same rows
}

// countSample counts, over the sample, the rows each plan would read or find.
func countSample(rows []domain.Project, c domain.Criteria, t domain.Terms) sampleCounts {
	m := domain.NewMatcher(c)
	// The keyword GIN indexes also hold province, status and method
	// (btree_gin, migration 2): a bitmap reads the rows matching the driving
	// keyword AND those filters.
	fm := domain.NewMatcher(domain.Criteria{Provinces: c.Provinces, Statuses: c.Statuses, Methods: c.Methods})
	var wc domain.Criteria // the single province a filter walk would lead with
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

// choosePlan picks the plan of c from the sample's counts (of a table of
// total rows), for a page that needs the first need matches.
func choosePlan(c domain.Criteria, t domain.Terms, s sampleCounts, total int64, need int) Analysis {
	a := Analysis{Drive: -2}
	n := float64(s.rows)
	if n == 0 {
		n = 1
	}
	a.Fraction = float64(s.hits) / n
	a.Estimate = a.Fraction * float64(total)
	best := -1.0
	for j, k := range t.All {
		if indexable(k) && (best < 0 || float64(s.termHits[j]) < best) {
			best, a.Drive = float64(s.termHits[j]), j
		}
	}
	anyIndexable := len(t.Any) > 0
	for _, k := range t.Any {
		anyIndexable = anyIndexable && indexable(k)
	}
	if anyIndexable && (best < 0 || float64(s.anyHits) < best) {
		best, a.Drive = float64(s.anyHits), -1
	}
	// A single province walks the (province, date) btree: only the rows of
	// that province are read, in date order. (A status is common enough for
	// the covering date walk, which holds it; migration 6.)
	filterWalk := dateOrdered(c.Sort) && len(c.Provinces) == 1
	switch {
	case a.Drive == -2:
		a.Plan = PlanPlanner
		if len(t.All)+len(t.Any) > 0 { // only 1-character keywords
			a.Plan = PlanWalk
		}
	case c.Sort == domain.SortRelevance && len(t.Positive()) > 1 && len(t.Any) > 0:
		a.Plan = PlanBitmap // scores need every match
	default:
		// Walking reads about need/fraction rows (of the filter's rows when
		// a filter btree leads); the bitmap reads every row of the driving
		// keyword within the indexed filters. Sample zero hits → rare.
		driveRows := best / n * float64(total)
		walkRows, filterRows := float64(total), float64(total)
		if a.Fraction > 0 {
			walkRows = float64(need) / a.Fraction
			filterRows = walkRows * float64(s.walkHits) / n
		}
		// The date btree holds search_text and the GIN filters (migration
		// 4): a date walk with no other condition is an index-only scan,
		// measured ~10× cheaper a row than heap rows (1 µs against 10 µs).
		if coveredWalk(c) {
			walkRows /= 8
		}
		switch {
		case s.hits < 3 || (driveRows <= walkRows && (!filterWalk || driveRows <= filterRows)):
			a.Plan = PlanBitmap
		case filterWalk && filterRows < walkRows:
			a.Plan = PlanFilter
		default:
			a.Plan = PlanWalk
		}
	}
	if _, _, dueFilter := c.DueRange(); dueFilter && (a.Drive == -2 || float64(s.dueHits) <= best) {
		a.Plan = PlanDue
	}
	return a
}

// dateOrdered: the sort walks the date btree (SortDeadline's second part
// does; its first part walks the deadline btree, of few rows).
func dateOrdered(s domain.SortOrder) bool { return s == domain.SortDate || s == domain.SortDeadline }

// coveredWalk reports whether a date walk for c reads only columns of the
// date btree (keywords, province, status, method, dates).
func coveredWalk(c domain.Criteria) bool {
	return c.Sort == domain.SortDate && len(c.Ministries)+len(c.Departments)+len(c.SubDepartments)+len(c.Strategies)+
		len(c.WorkTypes)+len(c.ProjectIDs)+len(c.AnnouncementTypes)+len(c.BudgetYears) == 0 && c.MinBudget == nil && c.MaxBudget == nil
}

func planSettings(plan string) string {
	off := map[string]bool{}
	switch plan {
	case PlanWalk, PlanFilter:
		off["enable_bitmapscan"], off["enable_sort"], off["enable_seqscan"] = true, true, true
	case PlanBitmap, PlanIDs, PlanDue:
		off["enable_indexscan"], off["enable_seqscan"], off["enable_indexonlyscan"] = true, true, true
	}
	// The disabled paths inflate cost estimates past jit_above_cost: JIT
	// compilation then costs ~300 ms per query, and parallel workers do not
	// pay off for a page of 10; both are off for search.
	s := "SELECT set_config('plan_cache_mode', 'force_custom_plan', true), set_config('jit', 'off', true), " +
		"set_config('max_parallel_workers_per_gather', '0', true)"
	for _, k := range []string{"enable_bitmapscan", "enable_sort", "enable_seqscan", "enable_indexscan", "enable_indexonlyscan"} {
		v := "on"
		if off[k] {
			v = "off"
		}
		s += ", set_config('" + k + "', '" + v + "', true)"
	}
	return s
}
