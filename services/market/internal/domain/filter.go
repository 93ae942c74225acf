package domain

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"bidradar/pkg/apperr"
	"bidradar/pkg/thaitext"
)

// Filter selects awards with the criteria of GET /gen-infor
// (docs/product.md#search-criteria): every list is OR within itself, the
// lists AND together. Keywords are Thai-normalised.
type Filter struct {
	Or, And, Not      []string
	Depts, SubDepts   []string
	Ministries        []string
	Provinces         []string
	Methods, Types    []string
	BudgetYears       []int
	From, To          *time.Time // announce dates, inclusive
	MinBudget, MaxBud *int64     // satang
}

// Only reports whether f is exactly one value of one dimension (a rollup's group).
func (f Filter) Only() (dim, value string, ok bool) {
	n := len(f.Or) + len(f.And) + len(f.Not) + len(f.Depts) + len(f.SubDepts) + len(f.Ministries) +
		len(f.Provinces) + len(f.Methods) + len(f.Types) + len(f.BudgetYears)
	if n != 1 || f.From != nil || f.To != nil || f.MinBudget != nil || f.MaxBud != nil {
		return "", "", false
	}
	switch {
	case len(f.Depts) == 1:
		return "dept", f.Depts[0], true
	case len(f.Methods) == 1:
		return "method", f.Methods[0], true
	case len(f.Types) == 1:
		return "type", f.Types[0], true
	}
	return "", "", false
}

// RawFilter is the request's filter fields as sent.
type RawFilter struct {
	Keyword                     string
	Or, And, Not                []string
	Depts, SubDepts, Ministries []string
	Provinces, Methods, Types   []string
	BudgetYears                 []string
	From, To                    string
	MinBudget, MaxBudget        *float64
}

var codeRe = regexp.MustCompile(`^[0-9A-Za-z._-]{1,40}$`)

// ErrInvalidCriteria is a filter that does not parse (400).
func ErrInvalidCriteria(what string) error {
	return apperr.New(apperr.InvalidArgument, "invalid-criteria", "Invalid criteria: "+what)
}

func splitList(vs []string) []string {
	var out []string
	for _, v := range vs {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

func keywords(vs []string, what string) ([]string, error) {
	var out []string
	for _, v := range splitList(vs) {
		if thaitext.RuneLen(v) > 100 {
			return nil, ErrInvalidCriteria(what + " keyword longer than 100 characters")
		}
		if n := thaitext.Normalize(v); n != "" {
			out = append(out, n)
		}
	}
	if len(out) > 20 {
		return nil, ErrInvalidCriteria("more than 20 " + what + " keywords")
	}
	return out, nil
}

func codes(vs []string, what string) ([]string, error) {
	out := splitList(vs)
	if len(out) > 200 {
		return nil, ErrInvalidCriteria("more than 200 " + what)
	}
	for _, c := range out {
		if !codeRe.MatchString(c) {
			return nil, ErrInvalidCriteria(what + " code " + strconv.Quote(c))
		}
	}
	return out, nil
}

func satang(v *float64, what string) (*int64, error) {
	if v == nil {
		return nil, nil
	}
	if math.IsNaN(*v) || math.IsInf(*v, 0) || *v < 0 || *v > 1e13 {
		return nil, ErrInvalidCriteria(what)
	}
	s := int64(math.Round(*v * 100))
	return &s, nil
}

// ParseDate reads an ISO date (YYYY-MM-DD, Gregorian) or a Thai one
// (DD/MM/YYYY, Buddhist era).
func ParseDate(s string) (*time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return &t, nil
	}
	if t, err := time.Parse("2/1/2006", s); err == nil && t.Year() > 2400 {
		t = t.AddDate(-543, 0, 0)
		return &t, nil
	}
	return nil, ErrInvalidCriteria("date " + strconv.Quote(s))
}

// ParseFilter validates a request's filters.
func ParseFilter(r RawFilter) (Filter, error) {
	var f Filter
	var err error
	if f.Or, err = keywords(r.Or, "OR"); err != nil {
		return f, err
	}
	if f.And, err = keywords(append([]string{r.Keyword}, r.And...), "AND"); err != nil {
		return f, err
	}
	if f.Not, err = keywords(r.Not, "NOT"); err != nil {
		return f, err
	}
	for _, c := range []struct {
		in  []string
		out *[]string
		nm  string
	}{{r.Depts, &f.Depts, "agency"}, {r.SubDepts, &f.SubDepts, "sub-agency"}, {r.Ministries, &f.Ministries, "ministry"},
		{r.Provinces, &f.Provinces, "province"}, {r.Methods, &f.Methods, "method"}, {r.Types, &f.Types, "category"}} {
		if *c.out, err = codes(c.in, c.nm); err != nil {
			return f, err
		}
	}
	for _, y := range splitList(r.BudgetYears) {
		n, err := strconv.Atoi(y)
		if err != nil || n < 2400 || n > 2700 {
			return f, ErrInvalidCriteria("budget year " + strconv.Quote(y) + " (Buddhist era)")
		}
		f.BudgetYears = append(f.BudgetYears, n)
	}
	if f.From, err = ParseDate(r.From); err != nil {
		return f, err
	}
	if f.To, err = ParseDate(r.To); err != nil {
		return f, err
	}
	if f.MinBudget, err = satang(r.MinBudget, "projectMoneyS_User"); err != nil {
		return f, err
	}
	if f.MaxBud, err = satang(r.MaxBudget, "projectMoneyE_User"); err != nil {
		return f, err
	}
	return f, nil
}
