package domain

import (
	"context"
	"time"

	"bidradar/pkg/apperr"
)

// Award is one awarded project as the projects service published it
// (docs/market.md#awards). Money in satang; nil when not published.
type Award struct {
	ProjectID, ProjectName     string
	DeptCode, DeptName         string
	DeptSubCode, DeptSubName   string
	MinistryCode, MinistryName string
	ProvinceCode               string
	MethodCode, MethodName     string
	TypeCode, TypeName         string
	BudgetYear                 int
	Budget, Reference, Agreed  *int64
	AnnounceDate               *time.Time
	Source                     string
	Winners                    []Winner
	// EventAt is when the projects service published this state of the
	// award (its event's occurred_at): an award event older than the last
	// one applied to the project is ignored. Zero: unordered, always
	// applied. Not part of the award's content.
	EventAt time.Time `json:"-"`
}

// Winner is one winner of an award, as published and as identified.
type Winner struct {
	Name           string
	TaxIDPublished string
	TaxIDDamaged   bool
	// TaxID is the identity: set only for a valid id.
	TaxID      string
	ContractNo string
	Contract   *int64
}

// Key is the winner's identity (WinnerKey).
func (w Winner) Key() string { return WinnerKey(w.TaxID, w.Name) }

// NewWinner classifies a published winner.
func NewWinner(name, taxID string, damaged bool, contractNo string, contract *int64) Winner {
	st, id := ClassifyTaxID(taxID, damaged)
	return Winner{Name: name, TaxIDPublished: taxID, TaxIDDamaged: st == TaxIDDamaged, TaxID: id,
		ContractNo: contractNo, Contract: contract}
}

// Discount is the award's discount % (ok false without both prices > 0).
func (a Award) Discount() (float64, bool) {
	if a.Reference == nil || a.Agreed == nil {
		return 0, false
	}
	return Discount(*a.Reference, *a.Agreed)
}

// NewWin is a winner with a valid tax id that an upsert recorded on a
// project for the first time: what the competitor watch tells.
type NewWin struct {
	ProjectID, ProjectName, DeptName string
	TaxID, WinnerName                string
	Agreed                           int64
}

// Alert is a pending competitor alert of one watcher.
type Alert struct {
	UserID string
	Wins   []NewWin
}

// Errors of the market's requests.
var (
	ErrSupplierNotFound = apperr.New(apperr.NotFound, "supplier-not-found", "No award was won with this tax id")
	ErrAgencyNotFound   = apperr.New(apperr.NotFound, "agency-not-found", "No award of this agency")
	ErrInvalidAgency    = apperr.New(apperr.InvalidArgument, "invalid-agency", "Invalid agency code")
	ErrWatchNotFound    = apperr.New(apperr.NotFound, "watch-not-found", "This tax id is not on your watchlist")
	ErrInvalidQuery     = apperr.New(apperr.InvalidArgument, "invalid-supplier-query", "Give a name of 2 to 200 characters or a 13-digit tax id")
	ErrInvalidProjectID = apperr.New(apperr.InvalidArgument, "invalid-project-id", "Invalid project id: it must be 11 digits")
	ErrProjectNotFound  = apperr.New(apperr.NotFound, "project-not-found", "Project not found")
	ErrInvalidBidPrice  = apperr.New(apperr.InvalidArgument, "invalid-bid-price", "The bid price must be more than 0 with at most 2 decimals")
	ErrUpgradeRequired  = apperr.New(apperr.PermissionDenied, "upgrade_required", "Your plan does not include this feature")
	ErrPlansUnavailable = apperr.New(apperr.Unavailable, "plans-unavailable", "Plans are unavailable, try again shortly")
)

// Plan is what a user's tier allows of the market.
type Plan struct {
	Tier                 string
	Benchmarks, Profiles bool
	// WatchlistSize: 0 none, -1 unlimited.
	WatchlistSize int
}

// Plans reads users' tiers (subscription's GetEntitlements).
type Plans interface {
	Plan(ctx context.Context, userID string) (Plan, error)
}

// ProjectInfo is what the price guide needs of a project.
type ProjectInfo struct {
	ID, Name                       string
	DeptCode, MethodCode, TypeCode string
	DeptName, MethodName, TypeName string
	Reference, Budget              *int64
}

// Projects reads projects (projects' GetProjectSummaries).
type Projects interface {
	// Project returns the project, ok false when unknown.
	Project(ctx context.Context, id string) (ProjectInfo, bool, error)
}
