package postgres

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"bidradar/pkg/thaitext"
	"bidradar/services/projects/internal/domain"
)

// builder renders the SQL of a search for its plan, collecting the
// arguments.
type builder struct {
	args []any
	freq map[int32]int32 // the sample's trigram frequencies
}

func (b *builder) arg(v any) string {
	b.args = append(b.args, v)
	return "$" + strconv.Itoa(len(b.args))
}

func likePattern(term string) string { return "%" + thaitext.EscapeLike(term) + "%" }

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

// pageQuery renders the page query for c under plan a: ids, announcement
// dates, sort keys (as numeric) and the window count (countCol) of the
// perPage+1 rows after the cursor or offset.
func (b *builder) pageQuery(where string, c domain.Criteria, t domain.Terms, after *cursor, offset, perPage int, countCol string) string {
	limit := " LIMIT " + strconv.Itoa(perPage+1) + " OFFSET " + strconv.Itoa(offset)
	if c.Sort == domain.SortDeadline {
		return b.deadlineQuery(where, c, after, offset+perPage+1) + limit
	}
	var order, keyset, sel string
	switch c.Sort {
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
	if keyset != "" {
		where += " AND " + keyset
	}
	// Late materialisation: the page query returns only ids, sort keys and
	// the window count (a bitmap plan sorts, and a window count buffers,
	// every match: with all columns that spilled past work_mem and doubled
	// the time), then the page's rows are read by id.
	return "SELECT id, announced_on, (" + sel + ")::numeric, " + countCol + " FROM projects WHERE " + where + " ORDER BY " + order + limit
}

func ptrMoney(v int64) *domain.Money { m := domain.Money(v); return &m }

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
