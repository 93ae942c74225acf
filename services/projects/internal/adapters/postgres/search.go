package postgres

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"bidradar/services/projects/internal/domain"
	"bidradar/services/projects/internal/domain/thaitext"
)

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

// sampler keeps ~SampleSize projects in memory to estimate the selectivity
// of a whole criteria (keywords and filters) in a few milliseconds.
type sampler struct {
	repo    *Repo
	mu      sync.Mutex
	rows    []domain.Project
	grams   map[int32]int32 // trigram code → sample rows holding it
	total   int64           // rows in the table when sampled
	at      time.Time
	writes  int
	loading sync.Mutex
}

func (s *sampler) noteWrites(n int) {
	s.mu.Lock()
	s.writes += n
	s.mu.Unlock()
}

func (s *sampler) get(ctx context.Context) ([]domain.Project, int64, map[int32]int32, error) {
	s.mu.Lock()
	fresh := s.rows != nil && time.Since(s.at) < s.repo.opts.SampleTTL && int64(s.writes) <= s.total/10
	rows, total, grams := s.rows, s.total, s.grams
	s.mu.Unlock()
	if fresh {
		return rows, total, grams, nil
	}
	s.loading.Lock()
	defer s.loading.Unlock()
	s.mu.Lock()
	if s.rows != nil && time.Since(s.at) < s.repo.opts.SampleTTL && int64(s.writes) <= s.total/10 {
		rows, total, grams = s.rows, s.total, s.grams
		s.mu.Unlock()
		return rows, total, grams, nil
	}
	s.mu.Unlock()
	rows, total, err := s.load(ctx)
	if err != nil {
		return nil, 0, nil, err
	}
	grams = gramFrequencies(rows)
	s.mu.Lock()
	s.rows, s.total, s.grams, s.at, s.writes = rows, total, grams, time.Now(), 0
	s.mu.Unlock()
	return rows, total, grams, nil
}

// gramFrequencies counts, for each trigram code, the sample rows holding it
// (~20 ms for 10 000 titles, once per sample).
func gramFrequencies(rows []domain.Project) map[int32]int32 {
	freq := make(map[int32]int32, 1<<15)
	for i := range rows {
		for _, c := range thaitext.Trigrams(rows[i].SearchText) {
			freq[c]++
		}
	}
	return freq
}

// maxTermGrams bounds the trigrams a keyword's index condition asks for.
// The intarray GIN has no tri-state consistent function, so each extra
// trigram in "contains all" costs a full posting-list walk; the rarest few
// narrow as well as all of them (measured at 1 M rows: "ยาว 999 เมตร", 10
// trigrams, 19 ms with all of them), and the LIKE recheck keeps it exact.
const maxTermGrams = 3

// rarestGrams keeps the n codes least frequent in the sample (their order
// in the term breaks ties).
func rarestGrams(codes []int32, freq map[int32]int32, n int) []int32 {
	if len(codes) <= n || freq == nil {
		return codes
	}
	out := slices.Clone(codes)
	slices.SortStableFunc(out, func(a, b int32) int { return int(freq[a]) - int(freq[b]) })
	return out[:n]
}

// Invalidate drops the sample (after bulk loads).
func (r *Repo) Invalidate() {
	r.sample.mu.Lock()
	r.sample.rows = nil
	r.sample.mu.Unlock()
}

func (s *sampler) load(ctx context.Context) ([]domain.Project, int64, error) {
	var est float64
	if err := s.repo.pool.QueryRow(ctx, `SELECT reltuples FROM pg_class WHERE oid = 'projects'::regclass`).Scan(&est); err != nil {
		return nil, 0, err
	}
	total := int64(est)
	if est < float64(s.repo.opts.SampleSize)*4 {
		if err := s.repo.pool.QueryRow(ctx, `SELECT count(*) FROM projects`).Scan(&total); err != nil {
			return nil, 0, err
		}
	}
	const cols = `id, search_text, method_code, province_code, ministry_code, agency_name, sub_agency_name, status,
		strategy_code, work_type_code, budget_year, announce_types, announced_on, budget, submission_due`
	q := "SELECT " + cols + " FROM projects"
	if total > int64(s.repo.opts.SampleSize) {
		pct := 100 * float64(s.repo.opts.SampleSize) / float64(total)
		q += fmt.Sprintf(" TABLESAMPLE SYSTEM (%.6f) REPEATABLE (1)", pct)
	}
	rows, err := s.repo.pool.Query(ctx, q)
	if err != nil {
		return nil, 0, fmt.Errorf("load sample: %w", err)
	}
	defer rows.Close()
	out := make([]domain.Project, 0, s.repo.opts.SampleSize)
	for rows.Next() {
		var p domain.Project
		var st string
		var by int32
		var types []string
		var announced time.Time
		var budget pgtype.Numeric
		var due *time.Time
		if err := rows.Scan(&p.ID, &p.SearchText, &p.MethodCode, &p.ProvinceCode, &p.MinistryCode, &p.AgencyName, &p.SubAgencyName,
			&st, &p.StrategyCode, &p.WorkTypeCode, &by, &types, &announced, &budget, &due); err != nil {
			return nil, 0, err
		}
		if due != nil {
			d := bangkokDate(*due)
			p.SubmissionDue = &d
		}
		p.Status, p.BudgetYear = domain.Status(st), int(by)
		for _, t := range types {
			p.Announcements = append(p.Announcements, domain.Announcement{Type: domain.AnnouncementType(t)})
		}
		if !announced.Equal(domain.NoDate) {
			p.LastAnnounced = bangkokDate(announced)
		}
		p.Budget, _ = money(budget)
		out = append(out, p)
	}
	return out, total, rows.Err()
}

// cursor is the keyset position after the last row of a page.
type cursor struct {
	Score  int    `json:"s,omitempty"`
	Date   string `json:"d,omitempty"`
	Budget int64  `json:"b,omitempty"`
	// Due is the last row's deadline in the upcoming part of SortDeadline
	// (empty: the cursor is in its second part, in date order).
	Due string `json:"u,omitempty"`
	ID  string `json:"i"`
}

func encodeCursor(c cursor) string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(s string) (cursor, error) {
	var c cursor
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err != nil || !domain.ValidProjectID(c.ID) {
		return c, domain.InvalidCriteria("bad cursor")
	}
	for _, d := range []string{c.Date, c.Due} {
		if _, err := time.Parse(time.DateOnly, d); d != "" && err != nil {
			return c, domain.InvalidCriteria("bad cursor")
		}
	}
	return c, nil
}

type builder struct {
	args []any
	freq map[int32]int32 // the sample's trigram frequencies
}

func (b *builder) arg(v any) string {
	b.args = append(b.args, v)
	return "$" + strconv.Itoa(len(b.args))
}

func likePattern(term string) string { return "%" + thaitext.EscapeLike(term) + "%" }

// termCond renders "text contains term". indexed=false hides the condition
// from the index (an expression on search_text), so it is only rechecked.
// Indexed, the trigram GIN narrows: a term of 3+ characters holds all its
// trigrams, a 2-character term one of the trigrams that start with it.
func (b *builder) termCond(term string, indexed bool) string {
	col := "search_text"
	if !indexed {
		col = "(search_text || '')"
	}
	like := col + " LIKE " + b.arg(likePattern(term))
	if !indexed {
		return like
	}
	if rs := []rune(term); len(rs) == 2 {
		return "(search_grams && " + b.arg(thaitext.PairTrigrams(rs[0], rs[1])) + "::int4[] AND " + like + ")"
	}
	return "(search_grams @> " + b.arg(rarestGrams(thaitext.TermTrigrams(term), b.freq, maxTermGrams)) + "::int4[] AND " + like + ")"
}

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

func (r *Repo) analyse(ctx context.Context, c domain.Criteria, t domain.Terms, need int) (Analysis, error) {
	rows, total, grams, err := r.sample.get(ctx)
	if err != nil {
		return Analysis{}, err
	}
	a := Analysis{Drive: -2, SampleSize: len(rows), gramFreq: grams}
	if len(c.ProjectIDs) > 0 && r.opts.ForcePlan == "" {
		// The listed rows are read by key whatever the rest: no estimate
		// needed (matching thousands of ids against the sample cost more
		// than the query).
		a.Plan = PlanIDs
		return a, nil
	}
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
	hits, walkHits, dueHits := 0, 0, 0
	termHits := make([]int, len(t.All))
	anyHits := 0
	dueFrom, dueTo, dueFilter := c.DueRange()
	for i := range rows {
		p := &rows[i]
		if m.Match(p) {
			hits++
		}
		if dueFilter && p.SubmissionDue != nil {
			if d := domain.DateKey(*p.SubmissionDue); !d.Before(dueFrom) && !d.After(dueTo) {
				dueHits++
			}
		}
		if wm.Match(p) {
			walkHits++
		}
		if !fm.Match(p) {
			continue
		}
		for j, k := range t.All {
			if strings.Contains(p.SearchText, k) {
				termHits[j]++
			}
		}
		if len(t.Any) > 0 {
			for _, k := range t.Any {
				if strings.Contains(p.SearchText, k) {
					anyHits++
					break
				}
			}
		}
	}
	n := float64(len(rows))
	if n == 0 {
		n = 1
	}
	a.Fraction = float64(hits) / n
	a.Estimate = a.Fraction * float64(total)
	best := -1.0
	for j, k := range t.All {
		if indexable(k) && (best < 0 || float64(termHits[j]) < best) {
			best, a.Drive = float64(termHits[j]), j
		}
	}
	anyIndexable := len(t.Any) > 0
	for _, k := range t.Any {
		anyIndexable = anyIndexable && indexable(k)
	}
	if anyIndexable && (best < 0 || float64(anyHits) < best) {
		best, a.Drive = float64(anyHits), -1
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
			filterRows = walkRows * float64(walkHits) / n
		}
		// The date btree holds search_text and the GIN filters (migration
		// 4): a date walk with no other condition is an index-only scan,
		// measured ~10× cheaper a row than heap rows (1 µs against 10 µs).
		if coveredWalk(c) {
			walkRows /= 8
		}
		switch {
		case hits < 3 || (driveRows <= walkRows && (!filterWalk || driveRows <= filterRows)):
			a.Plan = PlanBitmap
		case filterWalk && filterRows < walkRows:
			a.Plan = PlanFilter
		default:
			a.Plan = PlanWalk
		}
	}
	if dueFilter && (a.Drive == -2 || float64(dueHits) <= best) {
		a.Plan = PlanDue
	}
	if r.opts.ForcePlan != "" && a.Plan != PlanPlanner {
		a.Plan = r.opts.ForcePlan
	}
	return a, nil
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

// where renders the WHERE clause for plan a.
func (b *builder) where(c domain.Criteria, t domain.Terms, a Analysis) string {
	var conds []string
	for j, k := range t.All {
		conds = append(conds, b.termCond(k, a.Plan == PlanBitmap && j == a.Drive && indexable(k)))
	}
	if len(t.Any) > 0 {
		var ors []string
		for _, k := range t.Any {
			ors = append(ors, b.termCond(k, a.Plan == PlanBitmap && a.Drive == -1))
		}
		conds = append(conds, "("+strings.Join(ors, " OR ")+")")
	}
	for _, k := range t.None {
		conds = append(conds, "(search_text || '') NOT LIKE "+b.arg(likePattern(k)))
	}
	in := func(col string, vals []string) {
		if (a.Plan == PlanIDs || a.Plan == PlanDue) && col != "id" {
			// a filter on the listed rows, not a second index to combine
			// (a BitmapAnd with a province's whole posting list cost more)
			col = "(" + col + " || '')"
		}
		switch {
		case len(vals) == 1:
			// an equality keeps a (col, announced_on) btree walk in date order
			conds = append(conds, col+" = "+b.arg(vals[0])+"::text")
		case len(vals) > 1:
			conds = append(conds, col+" = ANY("+b.arg(vals)+"::text[])")
		}
	}
	in("method_code", c.Methods)
	in("province_code", c.Provinces)
	in("ministry_code", c.Ministries)
	in("agency_name", c.Departments)
	in("sub_agency_name", c.SubDepartments)
	in("status", c.Statuses)
	in("strategy_code", c.Strategies)
	in("work_type_code", c.WorkTypes)
	in("id", c.ProjectIDs)
	if len(c.AnnouncementTypes) > 0 {
		conds = append(conds, "announce_types && "+b.arg(c.AnnouncementTypes)+"::text[]")
	}
	if len(c.BudgetYears) > 0 {
		ys := make([]int32, len(c.BudgetYears))
		for i, y := range c.BudgetYears {
			ys[i] = int32(y)
		}
		conds = append(conds, "budget_year = ANY("+b.arg(ys)+"::int4[])")
	}
	if c.From != nil || c.To != nil {
		conds = append(conds, "announced_on > '1900-01-01'")
	}
	if c.From != nil {
		conds = append(conds, "announced_on >= "+b.arg(domain.DateKey(*c.From))+"::date")
	}
	if c.To != nil {
		conds = append(conds, "announced_on <= "+b.arg(domain.DateKey(*c.To))+"::date")
	}
	if from, to, ok := c.DueRange(); ok {
		conds = append(conds, "submission_due >= "+b.arg(from)+"::date", "submission_due <= "+b.arg(to)+"::date")
	}
	if c.MinBudget != nil {
		conds = append(conds, "budget >= "+b.arg(numeric(c.MinBudget)))
	}
	if c.MaxBudget != nil {
		conds = append(conds, "budget <= "+b.arg(numeric(c.MaxBudget)))
	}
	if len(conds) == 0 {
		return "TRUE"
	}
	return strings.Join(conds, " AND ")
}

func (b *builder) score(t domain.Terms) string {
	pos := t.Positive()
	if len(pos) == 0 {
		return "0"
	}
	parts := make([]string, len(pos))
	for i, k := range pos {
		parts[i] = "(CASE WHEN (search_text || '') LIKE " + b.arg(likePattern(k)) + " THEN 1 ELSE 0 END)"
	}
	return "(" + strings.Join(parts, " + ") + ")"
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

// Search implements domain.ProjectRepository.
func (r *Repo) Search(ctx context.Context, c domain.Criteria, pr domain.PageRequest) (domain.ResultPage, error) {
	if err := c.Validate(); err != nil {
		return domain.ResultPage{}, err
	}
	if pr.PerPage <= 0 {
		pr.PerPage = 10
	}
	if pr.PerPage > 100 {
		pr.PerPage = 100
	}
	if pr.Page <= 0 {
		pr.Page = 1
	}
	if c.Sort == "" {
		c.Sort = domain.SortDate
	}
	t := c.Terms()
	if c.Sort == domain.SortRelevance && len(t.Positive()) <= 1 {
		c.Sort = domain.SortDate // one keyword: every match scores the same
	}
	var after *cursor
	offset := (pr.Page - 1) * pr.PerPage
	if pr.After != "" {
		cur, err := decodeCursor(pr.After)
		if err != nil {
			return domain.ResultPage{}, err
		}
		after, offset = &cur, 0
	}
	a, err := r.analyse(ctx, c, t, offset+pr.PerPage)
	if err != nil {
		return domain.ResultPage{}, err
	}
	out := domain.ResultPage{Page: pr.Page, PerPage: pr.PerPage, Plan: a.Plan}

	b := builder{freq: a.gramFreq}
	where := b.where(c, t, a)
	var order, keyset, sel, q string
	switch c.Sort {
	case domain.SortDeadline:
		q = b.deadlineQuery(where, c, after, offset+pr.PerPage+1)
	case domain.SortBudget:
		order = "coalesce(budget, -1) DESC, id DESC"
		sel = "coalesce(budget, -1)"
		if after != nil {
			keyset = "(coalesce(budget, -1), id) < (" + b.arg(numeric(ptrMoney(after.Budget))) + "::numeric, " + b.arg(after.ID) + ")"
		}
	case domain.SortRelevance:
		sc := b.score(t)
		order = sc + " DESC, announced_on DESC, id DESC"
		sel = sc
		if after != nil {
			d, _ := time.Parse("2006-01-02", after.Date)
			keyset = "(" + sc + ", announced_on, id) < (" + b.arg(int32(after.Score)) + "::int, " + b.arg(d) + "::date, " + b.arg(after.ID) + ")"
		}
	default:
		order = "announced_on DESC, id DESC"
		sel = "0"
		if after != nil {
			d, _ := time.Parse("2006-01-02", after.Date)
			keyset = "(announced_on, id) < (" + b.arg(d) + "::date, " + b.arg(after.ID) + ")"
		}
	}
	pageWhere := where
	if keyset != "" {
		pageWhere += " AND " + keyset
	}
	// With a bitmap plan every match is read and sorted anyway: a window
	// count gives the exact total for free (not after a cursor, whose
	// keyset condition narrows the rows). SortDeadline's two parts count
	// apart.
	windowCount := (a.Plan == PlanBitmap || a.Plan == PlanIDs || a.Plan == PlanDue) && after == nil && c.Sort != domain.SortDeadline
	countCol := "0::bigint"
	if windowCount {
		countCol = "count(*) OVER ()"
	}
	// Late materialisation: the page query returns only ids, sort keys and
	// the window count (a bitmap plan sorts, and a window count buffers,
	// every match: with all columns that spilled past work_mem and doubled
	// the time), then the page's rows are read by id.
	if q == "" {
		q = "SELECT id, announced_on, (" + sel + ")::numeric, " + countCol + " FROM projects WHERE " + pageWhere + " ORDER BY " + order +
			" LIMIT " + strconv.Itoa(pr.PerPage+1) + " OFFSET " + strconv.Itoa(offset)
	} else {
		q += " LIMIT " + strconv.Itoa(pr.PerPage+1) + " OFFSET " + strconv.Itoa(offset)
	}
	pageArgs := append([]any(nil), b.args...)

	err = pgx.BeginTxFunc(ctx, r.pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, planSettings(a.Plan)); err != nil {
			return err
		}
		if err := explain(ctx, tx, q, pageArgs); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, q, pageArgs...)
		if err != nil {
			return err
		}
		var ids []string
		var dates []time.Time
		var scores []int64
		var dues []*time.Time
		windowTotal := int64(-1)
		for rows.Next() {
			var id string
			var d time.Time
			var key pgtype.Numeric
			if err := rows.Scan(&id, &d, &key, &windowTotal); err != nil {
				rows.Close()
				return err
			}
			ids, dates = append(ids, id), append(dates, d)
			k, _ := money(key)
			var due *time.Time
			if k == nil {
				scores = append(scores, 0)
			} else {
				scores = append(scores, int64(*k))
				t := dueEpoch.AddDate(0, 0, int(*k/100))
				due = &t
			}
			dues = append(dues, due)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if len(ids) > pr.PerPage {
			last := pr.PerPage - 1
			cur := cursor{ID: ids[last], Date: dates[last].Format("2006-01-02")}
			switch c.Sort {
			case domain.SortBudget:
				cur.Budget = scores[last]
			case domain.SortRelevance:
				cur.Score = int(scores[last] / 100)
			case domain.SortDeadline:
				if dues[last] != nil {
					cur.Due = dues[last].Format(time.DateOnly)
				}
			}
			out.NextCursor = encodeCursor(cur)
			ids = ids[:pr.PerPage]
		}
		if out.Items, err = r.byIDs(ctx, tx, ids); err != nil {
			return err
		}
		if windowCount && windowTotal >= 0 {
			out.Total = int(windowTotal)
			return nil
		}
		if windowCount && len(out.Items) == 0 && offset == 0 {
			out.Total = 0
			return nil
		}
		return r.count(ctx, tx, c, t, a, &out, offset)
	})
	if err != nil {
		return domain.ResultPage{}, fmt.Errorf("search: %w", err)
	}
	return out, nil
}

// dueEpoch is the origin of the day numbers that SortDeadline's page query
// returns as its sort key (NULL in its second part).
var dueEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// deadlineQuery renders SortDeadline's page query without its LIMIT: the
// projects whose last day to submit bids is today or later, by (deadline,
// id), then the others by (date, id) descending, each part a walk of its own
// btree (the deadline one, migration 16, holds few rows) bounded by limit.
// A cursor in the first part continues it and the whole second part; one
// in the second part continues only that. The second part runs only when
// the first leaves the page short (an Append hands its parts over in
// order, and a LIMIT above it stops pulling once the page is full;
// parallel plans are off for search).
func (b *builder) deadlineQuery(where string, c domain.Criteria, after *cursor, limit int) string {
	today := b.arg(domain.DateKey(c.Today)) + "::date"
	lim := " LIMIT " + strconv.Itoa(limit)
	first := "(SELECT id, announced_on, (submission_due - DATE '2000-01-01')::numeric AS k, 0::bigint AS n FROM projects WHERE " +
		where + " AND submission_due >= " + today
	second := "(SELECT id, announced_on, NULL::numeric, 0::bigint FROM projects WHERE " + where +
		" AND (submission_due < " + today + " OR submission_due IS NULL)"
	switch {
	case after != nil && after.Due != "":
		d, _ := time.Parse(time.DateOnly, after.Due)
		first += " AND (submission_due, id) > (" + b.arg(d) + "::date, " + b.arg(after.ID) + ")"
	case after != nil:
		d, _ := time.Parse(time.DateOnly, after.Date)
		second += " AND (announced_on, id) < (" + b.arg(d) + "::date, " + b.arg(after.ID) + ")"
		first = ""
	}
	second += " ORDER BY announced_on DESC, id DESC" + lim + ")"
	if first == "" {
		return "SELECT * FROM " + second + " s"
	}
	first += " ORDER BY submission_due, id" + lim + ")"
	return "SELECT * FROM (" + first + " UNION ALL " + second + ") s"
}

// byIDs reads the projects ids in that order.
func (r *Repo) byIDs(ctx context.Context, tx pgx.Tx, ids []string) ([]domain.Project, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	rows, err := tx.Query(ctx, "SELECT "+readColumns+" FROM projects WHERE id = ANY($1::text[])", ids)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	got := make(map[string]domain.Project, len(ids))
	for rows.Next() {
		p, err := scanProject(rows)
		if err != nil {
			return nil, err
		}
		got[p.ID] = p
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]domain.Project, 0, len(ids))
	for _, id := range ids {
		if p, ok := got[id]; ok {
			out = append(out, p)
		}
	}
	return out, nil
}

func ptrMoney(v int64) *domain.Money { m := domain.Money(v); return &m }

// count fills the total: exact up to the cap, an estimate above it.
func (r *Repo) count(ctx context.Context, tx pgx.Tx, c domain.Criteria, t domain.Terms, a Analysis, out *domain.ResultPage, offset int) error {
	capN := r.opts.TotalCap
	// The page itself may already prove the total.
	if out.NextCursor == "" && (len(out.Items) > 0 || offset == 0) {
		out.Total = offset + len(out.Items)
		return nil
	}
	// Above the cap by the sample's estimate: counting would cost a scan of
	// every match (and of every row sharing its trigrams); show the estimate.
	if a.SampleSize > 0 && a.Estimate > float64(capN) && a.Fraction*float64(a.SampleSize) >= 10 {
		out.Total, out.TotalEstimated = roundEstimate(a.Estimate), true
		return nil
	}
	ca := a
	if (ca.Plan == PlanWalk || ca.Plan == PlanFilter) && ca.Drive != -2 {
		ca.Plan = PlanBitmap
	}
	b := builder{freq: a.gramFreq}
	where := b.where(c, t, ca)
	if _, err := tx.Exec(ctx, planSettings(ca.Plan)); err != nil {
		return err
	}
	var n int
	cq := "SELECT count(*) FROM (SELECT 1 FROM projects WHERE " + where + " LIMIT " + strconv.Itoa(capN+1) + ") s"
	if err := explain(ctx, tx, cq, b.args); err != nil {
		return err
	}
	if err := tx.QueryRow(ctx, cq, b.args...).Scan(&n); err != nil {
		return err
	}
	if n > capN {
		est := a.Estimate
		if est <= float64(capN) {
			est = float64(capN + 1)
		}
		out.Total, out.TotalEstimated = roundEstimate(est), true
		return nil
	}
	out.Total = n
	return nil
}

func roundEstimate(v float64) int {
	switch {
	case v >= 100000:
		return int(v/10000+0.5) * 10000
	case v >= 10000:
		return int(v/1000+0.5) * 1000
	default:
		return int(v/100+0.5) * 100
	}
}

type explainKey struct{}

// WithExplain returns a context under which Search also runs EXPLAIN
// (ANALYZE, BUFFERS) of each statement it executes and appends the SQL and
// plans to *out (benchmarks and diagnosis only).
func WithExplain(ctx context.Context, out *[]string) context.Context {
	return context.WithValue(ctx, explainKey{}, out)
}

func explain(ctx context.Context, tx pgx.Tx, q string, args []any) error {
	out, _ := ctx.Value(explainKey{}).(*[]string)
	if out == nil {
		return nil
	}
	rows, err := tx.Query(ctx, "EXPLAIN (ANALYZE, BUFFERS) "+q, args...)
	if err != nil {
		return err
	}
	lines := []string{q, fmt.Sprint(args)}
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			rows.Close()
			return err
		}
		lines = append(lines, l)
	}
	rows.Close()
	*out = append(*out, strings.Join(lines, "\n"))
	return rows.Err()
}
