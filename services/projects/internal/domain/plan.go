package domain

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"bidradar/pkg/apperr"
	"bidradar/pkg/thaitext"
)

// Plan is what the user's tier in force allows, as the subscription service
// answers it (GetEntitlements). The numbers live in its tier table only:
// this service asks for them on each check and keeps no copy.
type Plan struct {
	Tier, TierLabel string
	// Saved searches of each kind a user may hold at once; -1 unlimited,
	// 0 not in the tier.
	NormalSearchSave, OvernightSearchSave int
	Features                              []string
}

// FeatureOCDSExport is the feature key of the OCDS export.
const FeatureOCDSExport = "ocds_export"

// Has reports whether the tier includes the feature.
func (p Plan) Has(feature string) bool { return slices.Contains(p.Features, feature) }

// SavedSearchLimit is how many searches of searchType the tier holds.
func (p Plan) SavedSearchLimit(searchType string) int {
	if searchType == SearchOvernight {
		return p.OvernightSearchSave
	}
	return p.NormalSearchSave
}

// Plans reads a user's plan; it returns ErrQuotaUnavailable when the
// subscription service gives no answer.
type Plans interface {
	Plan(ctx context.Context, userID string) (Plan, error)
}

// Refusals of a saved search by the plan or by what is saved already.
var (
	ErrSavedSearchLimit = apperr.New(apperr.Aborted, "saved-search-limit", "Limit reached")
	ErrDuplicateSearch  = apperr.New(apperr.AlreadyExists, "duplicate-search", "An identical search is already saved")
	ErrUpgradeRequired  = apperr.New(apperr.PermissionDenied, "upgrade_required", "Your plan does not include this feature")
)

func kindName(searchType string) string {
	if searchType == SearchOvernight {
		return "ค้นหาข้ามคืน"
	}
	return "ค้นหาแบบปกติ"
}

// SavedSearchRoom decides whether c may be stored beside the user's saved
// searches (existing, which may include c itself when it is an edit).
// wasType is c's search type before an edit, "" for a new search.
//
//   - The same criteria saved twice as the same kind is refused
//     (ErrDuplicateSearch, naming the search it repeats); the name does not
//     count, and neither does the order of list values or the case and
//     spelling variants that search treats alike.
//   - A kind the tier does not include is ErrUpgradeRequired.
//   - A new search, or an edit into another kind, is refused once the user
//     holds the tier's number of that kind (ErrSavedSearchLimit, 'Limit
//     reached' as the app expects of limits). Searches held above the
//     number (after a downgrade) stay, and edits that keep their kind go on.
func SavedSearchRoom(p Plan, existing []SavedCriteria, c SavedCriteria, wasType string) error {
	fp := c.Form.Fingerprint()
	held := 0
	for _, e := range existing {
		if (c.ID != "" && e.ID == c.ID) || e.SearchType != c.SearchType {
			continue
		}
		held++
		if e.Form.Fingerprint() == fp {
			return &apperr.Error{Kind: ErrDuplicateSearch.Kind, Slug: ErrDuplicateSearch.Slug,
				Message: fmt.Sprintf("An identical search is already saved: %q", e.Name)}
		}
	}
	if wasType == c.SearchType {
		return nil
	}
	limit := p.SavedSearchLimit(c.SearchType)
	switch {
	case limit == 0:
		return &apperr.Error{Kind: ErrUpgradeRequired.Kind, Slug: ErrUpgradeRequired.Slug,
			Message: fmt.Sprintf("Upgrade required: แพ็กเกจ%s ไม่มีการ%s กรุณาอัปเกรดแพ็กเกจ", p.TierLabel, kindName(c.SearchType))}
	case limit > 0 && held >= limit:
		return &apperr.Error{Kind: ErrSavedSearchLimit.Kind, Slug: ErrSavedSearchLimit.Slug,
			Message: fmt.Sprintf("Limit reached: บันทึกเงื่อนไข%sได้ %d ชุดในแพ็กเกจ%s ลบเงื่อนไขเดิมหรืออัปเกรดแพ็กเกจเพื่อบันทึกเพิ่ม",
				kindName(c.SearchType), limit, p.TierLabel)}
	}
	return nil
}

// SavedSearchesLeft is how many more searches of searchType fit beside
// existing (-1 unlimited).
func SavedSearchesLeft(p Plan, existing []SavedCriteria, searchType string) int {
	limit := p.SavedSearchLimit(searchType)
	if limit < 0 {
		return -1
	}
	held := 0
	for _, e := range existing {
		if e.SearchType == searchType {
			held++
		}
	}
	return max(limit-held, 0)
}

// Fingerprint identifies what a cleaned form searches for: two forms with
// the same fingerprint find the same projects. Keywords are compared as
// search compares them (normalised: Thai digits, case, spacing), list
// values as sets.
func (f SearchForm) Fingerprint() string {
	norm := func(in []string) []string {
		var out []string
		for _, s := range in {
			if n := thaitext.Normalize(s); n != "" && !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
		slices.Sort(out)
		return out
	}
	set := func(in []string) []string {
		out := slices.Clone(in)
		slices.Sort(out)
		return slices.Compact(out)
	}
	g := f
	g.AnyOf, g.AllOf, g.NoneOf = norm(f.AnyOf), norm(f.AllOf), norm(f.NoneOf)
	g.AnnouncementTypes, g.Departments, g.SubDepartments = set(f.AnnouncementTypes), set(f.Departments), set(f.SubDepartments)
	g.Methods, g.WorkTypes, g.Strategies = set(f.Methods), set(f.WorkTypes), set(f.Strategies)
	g.ProjectIDs, g.Statuses, g.Provinces, g.Ministries = set(f.ProjectIDs), set(f.Statuses), set(f.Provinces), set(f.Ministries)
	g.BudgetYears = slices.Clone(f.BudgetYears)
	slices.Sort(g.BudgetYears)
	g.BudgetYears = slices.Compact(g.BudgetYears)
	b, _ := json.Marshal(g) // plain values: cannot fail
	return string(b)
}
