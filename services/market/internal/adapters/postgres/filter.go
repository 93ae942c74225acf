// Package postgres is the market's store: the awards, their winners, the
// rollups, the watchlists and the competitor alerts, with the figures of
// docs/market.md#definitions computed by PostgreSQL (percentile_cont,
// percent_rank).
package postgres

import (
	"strconv"
	"strings"
	"time"

	"bidradar/pkg/thaitext"
	"bidradar/services/market/internal/domain"
)

// query collects the conditions and arguments of a statement.
type query struct {
	args  []any
	conds []string
}

func (q *query) arg(v any) string {
	q.args = append(q.args, v)
	return "$" + strconv.Itoa(len(q.args))
}

// contains is the condition "the award's name contains the normalised
// keyword": the trigram index narrows, LIKE decides
// (docs/architecture.md#trigram-index).
func (q *query) contains(kw string) string {
	like := "a.search_text LIKE " + q.arg("%"+thaitext.EscapeLike(kw)+"%")
	if codes := thaitext.TermTrigrams(kw); len(codes) > 0 {
		return "(a.terms @> " + q.arg(codes) + "::int4[] AND " + like + ")"
	}
	return like
}

func (q *query) in(col string, vs []string) {
	if len(vs) > 0 {
		q.conds = append(q.conds, col+" = ANY("+q.arg(vs)+"::text[])")
	}
}

// facetSQL is the token of a filter value in awards.terms (migrations/00004).
func facetSQL(dim, v string) string {
	return "(hashtext('" + dim + "' || " + v + ") | (-2147483648)::int4)"
}

// facets adds, beside a keyword's trigrams, the tokens of the filter values
// to the conditions on awards.terms: one GIN scan then intersects the
// keyword and the filters (docs/market.md#speed). The column conditions
// stay, so the tokens only narrow.
func (q *query) facets(f domain.Filter) {
	var all []string
	add := func(dim string, vs []string) {
		switch {
		case len(vs) == 1:
			all = append(all, facetSQL(dim, q.arg(vs[0])+"::text"))
		case len(vs) > 1:
			q.conds = append(q.conds, "a.terms && (SELECT array_agg("+facetSQL(dim, "v")+") FROM unnest("+q.arg(vs)+"::text[]) v)")
		}
	}
	years := make([]string, len(f.BudgetYears))
	for i, y := range f.BudgetYears {
		years[i] = strconv.Itoa(y)
	}
	add("d", f.Depts)
	add("s", f.SubDepts)
	add("n", f.Ministries)
	add("p", f.Provinces)
	add("m", f.Methods)
	add("t", f.Types)
	add("y", years)
	if len(all) > 0 {
		q.conds = append(q.conds, "a.terms @> ARRAY["+strings.Join(all, ", ")+"]")
	}
}

// where renders f over the awards aliased a.
func (q *query) where(f domain.Filter) string {
	for _, kw := range f.And {
		q.conds = append(q.conds, q.contains(kw))
	}
	if len(f.Or) > 0 {
		ors := make([]string, len(f.Or))
		for i, kw := range f.Or {
			ors[i] = q.contains(kw)
		}
		q.conds = append(q.conds, "("+strings.Join(ors, " OR ")+")")
	}
	for _, kw := range f.Not {
		q.conds = append(q.conds, "a.search_text NOT LIKE "+q.arg("%"+thaitext.EscapeLike(kw)+"%"))
	}
	if len(f.And)+len(f.Or) > 0 {
		q.facets(f)
	}
	q.in("a.dept_code", f.Depts)
	q.in("a.dept_sub_code", f.SubDepts)
	q.in("a.ministry_code", f.Ministries)
	q.in("a.province_code", f.Provinces)
	q.in("a.method_code", f.Methods)
	q.in("a.type_code", f.Types)
	if len(f.BudgetYears) > 0 {
		q.conds = append(q.conds, "a.budget_year = ANY("+q.arg(f.BudgetYears)+"::int[])")
	}
	if f.From != nil {
		q.conds = append(q.conds, "a.announce_date >= "+q.arg(f.From.Format(time.DateOnly))+"::date")
	}
	if f.To != nil {
		q.conds = append(q.conds, "a.announce_date <= "+q.arg(f.To.Format(time.DateOnly))+"::date")
	}
	if f.MinBudget != nil {
		q.conds = append(q.conds, "a.budget_satang >= "+q.arg(*f.MinBudget))
	}
	if f.MaxBud != nil {
		q.conds = append(q.conds, "a.budget_satang <= "+q.arg(*f.MaxBud))
	}
	if len(q.conds) == 0 {
		return "true"
	}
	return strings.Join(q.conds, " AND ")
}
