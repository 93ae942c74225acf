package domain

import (
	"context"
	"time"
)

// YearStat is a benchmark's budget year: projects with both prices and their median.
type YearStat struct {
	Year int
	N    int64
	P50  *float64
}

// WinnerStat is a winner of a group (TaxID empty for a name-grouped one).
type WinnerStat struct {
	TaxID, Name string
	Wins, Total int64 // Total in satang
	P50         *float64
}

// Benchmark is the figures of a group of awards (docs/market.md#definitions).
type Benchmark struct {
	N, NWithoutReference int64
	Stats                Stats
	Histogram            []Bin
	ByYear               []YearStat
	TopWinners           []WinnerStat
}

// SupplierHit is a supplier found by the search.
type SupplierHit struct {
	TaxID, Name string
	Wins, Total int64
}

// SupplierYear is a supplier's budget year.
type SupplierYear struct {
	Year        int
	Wins, Total int64
	P50         *float64
}

// AgencyStat is an agency a supplier won at.
type AgencyStat struct {
	Code, Name  string
	Wins, Total int64
}

// RecentWin is one of a supplier's latest awards.
type RecentWin struct {
	ProjectID, ProjectName, DeptName string
	Agreed, Reference                *int64
	Discount                         *float64
	Date                             *time.Time
}

// Supplier is a supplier's profile.
type Supplier struct {
	TaxID       string
	Names       []string
	Wins, Total int64
	P50         *float64
	ByYear      []SupplierYear
	Agencies    []AgencyStat
	Recent      []RecentWin
}

// AgencyYear is an agency's budget year.
type AgencyYear struct {
	Year            int
	Projects, Total int64
	P50             *float64
}

// MethodShare is a method of an agency's awards.
type MethodShare struct {
	Code, Name      string
	Projects, Total int64
	SharePct        float64
}

// Agency is an agency's (or sub-agency's) profile.
type Agency struct {
	Code, Name, Level      string
	ParentCode, ParentName string
	Projects, Total        int64
	N, NWithoutReference   int64
	P50                    *float64
	ByYear                 []AgencyYear
	Methods                []MethodShare
	TopSuppliers           []WinnerStat
}

// Watch is one watched tax id with what the market knows of it.
type Watch struct {
	TaxID, Name string
	Wins, Total int64
	Created     time.Time
}

// Group is a price guide's group: the keys its basis uses.
type Group struct {
	Basis                          string
	DeptCode, MethodCode, TypeCode string
}

// Filter of the group.
func (g Group) Filter() Filter {
	var f Filter
	if g.DeptCode != "" {
		f.Depts = []string{g.DeptCode}
	}
	if g.MethodCode != "" {
		f.Methods = []string{g.MethodCode}
	}
	if g.TypeCode != "" {
		f.Types = []string{g.TypeCode}
	}
	return f
}

// Store keeps the awards, the rollups, the watchlists and the alerts.
type Store interface {
	// ApplyAward upserts an award by project id; an award equal to the stored
	// one changes nothing. Winners with a valid tax id new on the project are
	// written as pending alerts of their watchers, once per (user, project, tax id).
	ApplyAward(ctx context.Context, a Award, now time.Time) (changed bool, err error)
	// WithdrawAward deletes a project's award (its winners, its unsent
	// alerts) and marks its groups and suppliers stale; withdrawing an award
	// not held changes nothing (docs/market.md#withdrawn-awards). at is the
	// withdrawal event's time: an award event older than it is ignored
	// afterwards (zero: unordered).
	WithdrawAward(ctx context.Context, projectID string, at time.Time) (changed bool, err error)
	Benchmark(ctx context.Context, f Filter) (Benchmark, error)
	// GroupSizes counts the awards with both prices of each group.
	GroupSizes(ctx context.Context, gs []Group) ([]int64, error)
	// PercentRank places d among the discounts of f's awards (0 with none).
	PercentRank(ctx context.Context, f Filter, d float64) (float64, error)
	SearchSuppliers(ctx context.Context, nameKey, taxID string, limit int) ([]SupplierHit, error)
	Supplier(ctx context.Context, taxID string) (Supplier, bool, error)
	Agency(ctx context.Context, code string) (Agency, bool, error)
	// AddWatch adds a watch unless the user holds limit already (full true;
	// limit < 0: unlimited); adding one held already is no change.
	AddWatch(ctx context.Context, userID, taxID string, limit int, now time.Time) (w Watch, full bool, err error)
	ListWatches(ctx context.Context, userID string) ([]Watch, error)
	RemoveWatch(ctx context.Context, userID, taxID string) (bool, error)
	// FlushAlerts sends the pending alerts, one event per watcher (at most
	// perEvent awards each), and returns how many alerts left.
	FlushAlerts(ctx context.Context, perEvent int, now time.Time) (int, error)
	// RefreshRollups recomputes the suppliers and groups that writes made stale.
	RefreshRollups(ctx context.Context) error
	ForgetUser(ctx context.Context, userID string) error
}
