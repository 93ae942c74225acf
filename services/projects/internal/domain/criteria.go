package domain

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"bidradar/pkg/thaitext"

	"bidradar/pkg/apperr"
)

// SortOrder is the order of search results. Every order ends with the
// project id, so pages are stable.
type SortOrder string

// Sort orders.
const (
	SortDate      SortOrder = "date"      // last announcement date, newest first
	SortBudget    SortOrder = "budget"    // budget, largest first (no budget last)
	SortRelevance SortOrder = "relevance" // positive keywords found, then date
	// SortDeadline: the projects whose last day to submit bids is Today or
	// later, soonest first (same day: id ascending), then every other
	// project (no deadline, or passed) in date order.
	SortDeadline SortOrder = "deadline"
)

// MaxClosingWithin bounds ClosingWithin (a year and a day).
const MaxClosingWithin = 366

// Criteria is the search form (the criteria payload of
// docs/product.md#search-criteria), in domain terms. Keywords use substring
// semantics on normalised text.
type Criteria struct {
	Keyword           string   // free keyword (gen-infor keyword): one phrase
	AnyOf             []string // keyWord_Incl_Or
	AllOf             []string // keyWord_Incl_And
	NoneOf            []string // keyWord_Excl_Nor
	AnnouncementTypes []string // annouType_User_required: any step of these types
	Methods           []string // method_User_required
	Provinces         []string // province_User (DOPA codes)
	Ministries        []string
	Departments       []string // agency names as in the data
	SubDepartments    []string // sub-agency names as in the data
	Statuses          []string // projectStatus_User
	Strategies        []string // govStrategy_User
	WorkTypes         []string // typeTran_User (category of work)
	ProjectIDs        []string // project_id_User
	BudgetYears       []int    // budgetYear_User
	From, To          *time.Time
	MinBudget         *Money
	MaxBudget         *Money
	// DueFrom, DueTo bound the last day to submit bids (SubmissionDue);
	// either one leaves out the projects without one.
	DueFrom, DueTo *time.Time
	// ClosingWithin > 0 keeps the projects whose last day to submit bids is
	// Today or within the next ClosingWithin-1 days (7: "closing this week").
	ClosingWithin int
	// Today is the Bangkok date that ClosingWithin and SortDeadline count
	// from (listing only: saved searches never set them).
	Today time.Time
	Sort  SortOrder
}

// DueRange is the range of SubmissionDue dates (as DateKey) that the
// deadline filters allow; ok is false when there is no deadline filter.
// The range may be empty (from after to).
func (c Criteria) DueRange() (from, to time.Time, ok bool) {
	from, to = NoDate, time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)
	if c.DueFrom != nil {
		from, ok = DateKey(*c.DueFrom), true
	}
	if c.DueTo != nil {
		to, ok = DateKey(*c.DueTo), true
	}
	if c.ClosingWithin > 0 {
		today := DateKey(c.Today)
		if today.After(from) {
			from = today
		}
		if end := today.AddDate(0, 0, c.ClosingWithin-1); end.Before(to) {
			to = end
		}
		ok = true
	}
	return from, to, ok
}

// Upcoming reports whether p's last day to submit bids is Today or later:
// the first part of SortDeadline.
func (c Criteria) Upcoming(p *Project) bool {
	return p.SubmissionDue != nil && !DateKey(*p.SubmissionDue).Before(DateKey(c.Today))
}

// ErrInvalidCriteria reports criteria that cannot be run (a 400);
// InvalidCriteria makes one whose message is the reason.
var ErrInvalidCriteria = apperr.New(apperr.InvalidArgument, "invalid-criteria", "Invalid search criteria")

// InvalidCriteria is ErrInvalidCriteria (errors.Is matches) with the reason
// as its message, e.g. "at most 50 keywords".
func InvalidCriteria(format string, args ...any) error {
	return &apperr.Error{Kind: ErrInvalidCriteria.Kind, Slug: ErrInvalidCriteria.Slug, Message: fmt.Sprintf(format, args...)}
}

// Terms are the normalised keyword lists of a criteria.
type Terms struct {
	All  []string // every one must occur (Keyword + AllOf)
	Any  []string // at least one must occur, when non-empty
	None []string // none may occur
}

// Terms normalises the keywords, dropping empties and duplicates.
func (c Criteria) Terms() Terms {
	norm := func(in []string) []string {
		var out []string
		for _, s := range in {
			if n := thaitext.Normalize(s); n != "" && !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
		return out
	}
	all := append([]string{c.Keyword}, c.AllOf...)
	return Terms{All: norm(all), Any: norm(c.AnyOf), None: norm(c.NoneOf)}
}

// ordered lists the terms in keywordsMatch's order: all, then any, then
// none.
func (t Terms) ordered() []string { return slices.Concat(t.All, t.Any, t.None) }

// Positive lists the distinct positive terms (All then Any).
func (t Terms) Positive() []string {
	out := append([]string(nil), t.All...)
	for _, s := range t.Any {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// Validate checks limits and formats.
func (c Criteria) Validate() error {
	for _, id := range c.ProjectIDs {
		if !ValidProjectID(strings.TrimSpace(id)) {
			return InvalidCriteria("project id %q must be 11 digits", id)
		}
	}
	if len(c.AnyOf)+len(c.AllOf)+len(c.NoneOf) > 50 {
		return InvalidCriteria("at most 50 keywords")
	}
	if c.From != nil && c.To != nil && c.To.Before(*c.From) {
		return InvalidCriteria("end date before start date")
	}
	if c.MinBudget != nil && c.MaxBudget != nil && *c.MaxBudget < *c.MinBudget {
		return InvalidCriteria("max budget below min budget")
	}
	if c.DueFrom != nil && c.DueTo != nil && c.DueTo.Before(*c.DueFrom) {
		return InvalidCriteria("deadline end date before start date")
	}
	if c.ClosingWithin < 0 || c.ClosingWithin > MaxClosingWithin {
		return InvalidCriteria("closing_within_days must be between 1 and %d", MaxClosingWithin)
	}
	if (c.ClosingWithin > 0 || c.Sort == SortDeadline) && c.Today.IsZero() {
		return InvalidCriteria("no date to count deadlines from")
	}
	switch c.Sort {
	case "", SortDate, SortBudget, SortRelevance, SortDeadline:
	default:
		return InvalidCriteria("sort %q", c.Sort)
	}
	return nil
}

// Matcher evaluates a criteria against projects in memory. It is the
// reference semantics of search (the brute-force oracle of the tests) and
// the selectivity estimator of the planner.
type Matcher struct {
	c       Criteria
	t       Terms
	ordered []string // t's terms in keywordsMatch's order
}

// NewMatcher prepares c for repeated evaluation.
func NewMatcher(c Criteria) *Matcher {
	t := c.Terms()
	return &Matcher{c: c, t: t, ordered: t.ordered()}
}

// MatchText evaluates only the keyword part on a normalised text.
func (m *Matcher) MatchText(text string) bool {
	return keywordsMatch(len(m.t.All), len(m.t.Any), len(m.t.None), func(i int) bool {
		return strings.Contains(text, m.ordered[i])
	})
}

// keywordsMatch is the keyword rule of search, shared by the matcher and
// the alerts index: every "all" term occurs, at least one "any" term when
// there are any, and no "none" term. occurs(i) tells whether term i occurs,
// numbered all, then any, then none.
func keywordsMatch(nAll, nAny, nNone int, occurs func(i int) bool) bool {
	for i := range nAll {
		if !occurs(i) {
			return false
		}
	}
	if nAny > 0 {
		ok := false
		for i := nAll; i < nAll+nAny && !ok; i++ {
			ok = occurs(i)
		}
		if !ok {
			return false
		}
	}
	for i := nAll + nAny; i < nAll+nAny+nNone; i++ {
		if occurs(i) {
			return false
		}
	}
	return true
}

// Match evaluates the whole criteria on p (p.SearchText must be derived).
func (m *Matcher) Match(p *Project) bool {
	c := &m.c
	if !in(c.Methods, p.MethodCode) || !in(c.Provinces, p.ProvinceCode) ||
		!in(c.Ministries, p.MinistryCode) || !in(c.Departments, p.AgencyName) ||
		!in(c.SubDepartments, p.SubAgencyName) || !in(c.Statuses, string(p.Status)) ||
		!in(c.Strategies, p.StrategyCode) || !in(c.WorkTypes, p.WorkTypeCode) ||
		!in(c.ProjectIDs, p.ID) {
		return false
	}
	if len(c.BudgetYears) > 0 && !slices.Contains(c.BudgetYears, p.BudgetYear) {
		return false
	}
	if len(c.AnnouncementTypes) > 0 {
		ok := false
		for _, a := range p.Announcements {
			if slices.Contains(c.AnnouncementTypes, string(a.Type)) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	if c.From != nil || c.To != nil {
		if p.LastAnnounced.IsZero() {
			return false
		}
		d := p.LastAnnounced.In(Bangkok)
		if c.From != nil && d.Before(dayStart(*c.From)) {
			return false
		}
		if c.To != nil && d.After(dayStart(*c.To)) {
			return false
		}
	}
	if from, to, ok := c.DueRange(); ok {
		if p.SubmissionDue == nil {
			return false
		}
		if d := DateKey(*p.SubmissionDue); d.Before(from) || d.After(to) {
			return false
		}
	}
	if c.MinBudget != nil || c.MaxBudget != nil {
		if p.Budget == nil {
			return false
		}
		if c.MinBudget != nil && *p.Budget < *c.MinBudget {
			return false
		}
		if c.MaxBudget != nil && *p.Budget > *c.MaxBudget {
			return false
		}
	}
	return m.MatchText(p.SearchText)
}

// in reports whether v is in list, an empty list allowing anything.
func in(list []string, v string) bool {
	if len(list) == 0 {
		return true
	}
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// Score is the relevance of a matching project: the number of distinct
// positive terms found in its text.
func (m *Matcher) Score(p *Project) int {
	n := 0
	for _, k := range m.t.Positive() {
		if strings.Contains(p.SearchText, k) {
			n++
		}
	}
	return n
}

// Less orders two matching projects for sort order s (true when a comes
// first): the key of s descending, then the id descending; SortDeadline's
// upcoming part ascending (deadline, then id).
func (m *Matcher) Less(s SortOrder, a, b *Project) bool {
	switch s {
	case SortDeadline:
		ua, ub := m.c.Upcoming(a), m.c.Upcoming(b)
		if ua != ub {
			return ua
		}
		if ua {
			if da, db := DateKey(*a.SubmissionDue), DateKey(*b.SubmissionDue); !da.Equal(db) {
				return da.Before(db)
			}
			return a.ID < b.ID
		}
		return m.Less(SortDate, a, b)
	case SortBudget:
		ab, bb := budgetKey(a), budgetKey(b)
		if ab != bb {
			return ab > bb
		}
	case SortRelevance:
		if sa, sb := m.Score(a), m.Score(b); sa != sb {
			return sa > sb
		}
		fallthrough
	default:
		ad, bd := DateKey(a.LastAnnounced), DateKey(b.LastAnnounced)
		if !ad.Equal(bd) {
			return ad.After(bd)
		}
	}
	return a.ID > b.ID
}

func budgetKey(p *Project) int64 {
	if p.Budget == nil {
		return -1
	}
	return int64(*p.Budget)
}

// NoDate is the sort key of a project without announcement date.
var NoDate = time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)

// DateKey is the date sort key (calendar date as UTC midnight; NoDate when unset).
func DateKey(t time.Time) time.Time {
	if t.IsZero() {
		return NoDate
	}
	t = t.In(Bangkok)
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

func dayStart(t time.Time) time.Time {
	t = t.In(Bangkok)
	return Date(t.Year(), t.Month(), t.Day())
}
