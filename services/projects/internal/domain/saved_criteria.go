package domain

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Search types of a saved criteria (ToDoSearch search_type).
const (
	SearchNormal    = "normal"
	SearchOvernight = "overnight"
)

// QuotaSearchCombination is the subscription service's daily and monthly
// limit a normal save consumes.
const QuotaSearchCombination = "search_combination"

// QuotaExploreLiveSearch is the limit kind of live look-ups at e-GP (scrape,
// update-project-smart): one unit per project asked of e-GP.
const QuotaExploreLiveSearch = "explore_live_search"

// ErrUnusableCriteria reports a well-formed criteria that cannot be saved:
// nothing to search for, a min budget above the max, dates reversed.
var ErrUnusableCriteria = errors.New("unusable criteria")

// ErrCriteriaNotFound reports an unknown saved criteria, or one of another user.
var ErrCriteriaNotFound = errors.New("search criteria not found")

// ErrCriteriaChanged reports an edit that lost a race: the saved criteria
// changed search type between reading and writing it.
var ErrCriteriaChanged = errors.New("search criteria changed meanwhile")

// ErrQuotaUnavailable reports that the subscription service did not answer.
var ErrQuotaUnavailable = errors.New("quota service unavailable")

// SearchForm is the flat criteria payload (docs/product.md#search-criteria), as saved. The JSON
// names are the spec's; amounts are exact satang.
type SearchForm struct {
	AnyOf             []string `json:"keyWord_Incl_Or,omitempty"`
	AllOf             []string `json:"keyWord_Incl_And,omitempty"`
	NoneOf            []string `json:"keyWord_Excl_Nor,omitempty"`
	AnnouncementTypes []string `json:"annouType_User_required,omitempty"`
	Departments       []string `json:"dept_User,omitempty"`
	SubDepartments    []string `json:"deptSubProvince_User,omitempty"`
	Methods           []string `json:"method_User_required,omitempty"`
	WorkTypes         []string `json:"typeTran_User,omitempty"`
	Strategies        []string `json:"govStrategy_User,omitempty"`
	ProjectIDs        []string `json:"project_id_User,omitempty"`
	From              string   `json:"annouSDate_User,omitempty"` // ISO date
	To                string   `json:"annouEDate_User,omitempty"` // ISO date
	MinBudget         *Money   `json:"projectMoneyS_User_satang,omitempty"`
	MaxBudget         *Money   `json:"projectMoneyE_User_satang,omitempty"`
	Statuses          []string `json:"projectStatus_User,omitempty"`
	BudgetYears       []int    `json:"budgetYear_User,omitempty"`
	Provinces         []string `json:"province_User,omitempty"`
	Ministries        []string `json:"ministry_User,omitempty"`
}

// cleanList trims, splits comma-separated values, and drops empties and
// duplicates.
func cleanList(in []string) []string {
	var out []string
	for _, v := range in {
		for _, s := range strings.Split(v, ",") {
			if s = collapse(s); s != "" && !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

func isoDate(field, s string) (string, *time.Time, error) {
	s = strings.TrimSpace(foldDigits(s))
	if s == "" {
		return "", nil, nil
	}
	t, err := time.ParseInLocation(time.DateOnly, s, Bangkok)
	if err != nil {
		return "", nil, InvalidCriteria("%s must be an ISO date YYYY-MM-DD (Gregorian), got %q", field, s)
	}
	return s, &t, nil
}

// Clean normalises the form (lists split on commas and deduplicated, Thai
// digits folded, ids checked) and validates it. Malformed values give
// ErrInvalidCriteria; a form that is well formed but cannot be run gives
// ErrUnusableCriteria.
func (f SearchForm) Clean() (SearchForm, error) {
	out := SearchForm{
		AnyOf: cleanList(f.AnyOf), AllOf: cleanList(f.AllOf), NoneOf: cleanList(f.NoneOf),
		AnnouncementTypes: cleanList(f.AnnouncementTypes), Departments: cleanList(f.Departments),
		SubDepartments: cleanList(f.SubDepartments), Methods: cleanList(f.Methods), WorkTypes: cleanList(f.WorkTypes),
		Strategies: cleanList(f.Strategies), Statuses: cleanList(f.Statuses), Provinces: cleanList(f.Provinces),
		Ministries: cleanList(f.Ministries), MinBudget: f.MinBudget, MaxBudget: f.MaxBudget,
	}
	for _, raw := range cleanList(f.ProjectIDs) {
		id, ok := NormalizeProjectID(raw)
		if !ok {
			return out, InvalidCriteria("project id %q in project_id_User must be exactly 11 digits", raw)
		}
		if !slices.Contains(out.ProjectIDs, id) {
			out.ProjectIDs = append(out.ProjectIDs, id)
		}
	}
	for _, t := range out.AnnouncementTypes {
		if !AnnouncementType(t).Valid() {
			return out, InvalidCriteria("unknown announcement type %q in annouType_User_required (P0, 15, B0, D0, D1, D2, W0, W1, W2)", t)
		}
	}
	for _, s := range out.Statuses {
		if !slices.ContainsFunc(Statuses, func(c Code) bool { return c.Code == s }) {
			return out, InvalidCriteria("unknown status %q in projectStatus_User", s)
		}
	}
	for _, y := range f.BudgetYears {
		if y < 2400 || y > 2800 {
			return out, InvalidCriteria("budget year %d in budgetYear_User must be a Buddhist-era year such as 2569", y)
		}
		if !slices.Contains(out.BudgetYears, y) {
			out.BudgetYears = append(out.BudgetYears, y)
		}
	}
	var from, to *time.Time
	var err error
	if out.From, from, err = isoDate("annouSDate_User", f.From); err != nil {
		return out, err
	}
	if out.To, to, err = isoDate("annouEDate_User", f.To); err != nil {
		return out, err
	}
	if (out.MinBudget != nil && *out.MinBudget < 0) || (out.MaxBudget != nil && *out.MaxBudget < 0) {
		return out, InvalidCriteria("projectMoneyS_User and projectMoneyE_User must not be negative")
	}
	if len(out.AnyOf)+len(out.AllOf)+len(out.NoneOf) > 50 {
		return out, fmt.Errorf("%w: at most 50 keywords", ErrUnusableCriteria)
	}
	if !out.hasCriterion() {
		return out, fmt.Errorf("%w: at least one search criterion is required (keywords, project ids, announcement types, methods, agencies, provinces, statuses, dates, budget or budget year)", ErrUnusableCriteria)
	}
	if out.MinBudget != nil && out.MaxBudget != nil && *out.MinBudget > *out.MaxBudget {
		return out, fmt.Errorf("%w: the minimum budget projectMoneyS_User (%s) is above the maximum projectMoneyE_User (%s)", ErrUnusableCriteria, out.MinBudget.Baht(), out.MaxBudget.Baht())
	}
	if from != nil && to != nil && to.Before(*from) {
		return out, fmt.Errorf("%w: annouEDate_User (%s) is before annouSDate_User (%s)", ErrUnusableCriteria, out.To, out.From)
	}
	return out, nil
}

// hasCriterion reports whether anything narrows the search. Exclusions
// alone (keyWord_Excl_Nor) count: "everything except" is a search.
func (f SearchForm) hasCriterion() bool {
	return len(f.AnyOf)+len(f.AllOf)+len(f.NoneOf)+len(f.AnnouncementTypes)+len(f.Departments)+
		len(f.SubDepartments)+len(f.Methods)+len(f.WorkTypes)+len(f.Strategies)+len(f.ProjectIDs)+
		len(f.Statuses)+len(f.BudgetYears)+len(f.Provinces)+len(f.Ministries) > 0 ||
		f.From != "" || f.To != "" || f.MinBudget != nil || f.MaxBudget != nil
}

// Criteria turns a cleaned form into search criteria.
func (f SearchForm) Criteria() Criteria {
	c := Criteria{
		AnyOf: f.AnyOf, AllOf: f.AllOf, NoneOf: f.NoneOf, AnnouncementTypes: f.AnnouncementTypes,
		Methods: f.Methods, Provinces: f.Provinces, Ministries: f.Ministries, Departments: f.Departments,
		SubDepartments: f.SubDepartments, Statuses: f.Statuses, Strategies: f.Strategies, WorkTypes: f.WorkTypes,
		ProjectIDs: f.ProjectIDs, BudgetYears: f.BudgetYears, MinBudget: f.MinBudget, MaxBudget: f.MaxBudget,
	}
	if t, err := time.ParseInLocation(time.DateOnly, f.From, Bangkok); err == nil {
		c.From = &t
	}
	if t, err := time.ParseInLocation(time.DateOnly, f.To, Bangkok); err == nil {
		c.To = &t
	}
	return c
}

// Summary is a short Thai name for a form saved without one.
func (f SearchForm) Summary() string {
	var parts []string
	kw := append(append([]string(nil), f.AllOf...), f.AnyOf...)
	if len(kw) > 0 {
		parts = append(parts, strings.Join(kw, ", "))
	}
	if len(f.ProjectIDs) > 0 {
		parts = append(parts, "โครงการ "+strings.Join(f.ProjectIDs, ", "))
	}
	switch {
	case f.From != "" && f.To != "":
		parts = append(parts, "ประกาศ "+f.From+" ถึง "+f.To)
	case f.From != "":
		parts = append(parts, "ประกาศตั้งแต่ "+f.From)
	case f.To != "":
		parts = append(parts, "ประกาศถึง "+f.To)
	}
	s := strings.Join(parts, " · ")
	if s == "" {
		s = "เงื่อนไขการค้นหา"
	}
	if r := []rune(s); len(r) > 120 {
		s = string(r[:119]) + "…"
	}
	return s
}

// SavedCriteria is a user's saved search (ToDoSearch).
type SavedCriteria struct {
	ID             string
	Key            SearchKey // ID's bytes when read from the store (see SearchKey)
	UserID         string
	Name           string
	SearchType     string // normal or overnight
	Form           SearchForm
	CreatedAt      time.Time
	LastRunAt      *time.Time
	LastMatchCount int64
}

// SearchKey is the search's id as its bytes: Key, set by the store when it
// reads the search (the instant alerts need it for each of millions of
// matches), else parsed from ID.
func (c *SavedCriteria) SearchKey() (SearchKey, bool) {
	if c.Key != (SearchKey{}) {
		return c.Key, true
	}
	return ParseSearchKey(c.ID)
}

// RoomCheck decides, inside a write of the user's saved searches, whether
// the write may go on, from every search the user holds (SavedSearchRoom):
// its error refuses the write.
type RoomCheck func(existing []SavedCriteria) error

// SavedCriteriaRepository stores saved criteria; every call is scoped to
// its owner, so another user's id is ErrCriteriaNotFound. The writes that
// take a RoomCheck (nil: none) run one at a time per user, so two saves at
// once cannot both take the last room.
type SavedCriteriaRepository interface {
	// SaveCriteria inserts c and returns it with its id and creation time.
	SaveCriteria(ctx context.Context, c SavedCriteria, check RoomCheck) (SavedCriteria, error)
	// ListCriteria returns the user's criteria, newest first.
	ListCriteria(ctx context.Context, userID string, limit int) ([]SavedCriteria, error)
	GetCriteria(ctx context.Context, userID, id string) (SavedCriteria, error)
	// UpdateCriteria replaces the name, search type and form of the user's
	// criteria c.ID, if its search type is still wasType (else
	// ErrCriteriaChanged), and clears its last run (the count was of the
	// old criteria). It returns the criteria as stored.
	UpdateCriteria(ctx context.Context, c SavedCriteria, wasType string, check RoomCheck) (SavedCriteria, error)
	// RecordCriteriaRun stores the time and match count of a run.
	RecordCriteriaRun(ctx context.Context, userID, id string, at time.Time, matches int64) error
	// DeleteCriteria removes the criteria and returns what it was.
	DeleteCriteria(ctx context.Context, userID, id string) (SavedCriteria, error)
	// DeleteUserCriteria removes every saved criteria of a user (account deleted).
	DeleteUserCriteria(ctx context.Context, userID string) error
	// SearchOwners returns the searches among keys that exist, with their
	// id, owner and name only, and the version of the saved searches they
	// were read at (CriteriaVersion, in the same snapshot).
	SearchOwners(ctx context.Context, keys []SearchKey) ([]SavedCriteria, int64, error)
}

// Caller is the signed-in user of a request, with the access token the
// service forwards to peers that act on the user's behalf.
type Caller struct {
	UserID string
	Token  string
}

// QuotaAnswer is the subscription service's answer to a consumption.
type QuotaAnswer struct {
	Allowed        bool
	RemainingToday int // -1 unlimited
	RemainingMonth int // -1 unlimited or no monthly window
	Detail         string
}

// Quota consumes tier limits in the subscription service. amount 0 only
// reads the state. It returns ErrQuotaUnavailable when the service cannot
// be reached.
type Quota interface {
	Consume(ctx context.Context, caller Caller, kind string, amount int) (QuotaAnswer, error)
}
