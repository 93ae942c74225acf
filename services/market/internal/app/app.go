// Package app holds the market's use cases: the tier checks
// (docs/market.md#tiers), the benchmarks, the price guide, the profiles, the
// watchlist and the awards the imports record.
package app

import (
	"context"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"bidradar/pkg/apperr"
	"bidradar/pkg/thaitext"
	"bidradar/services/market/internal/domain"
)

// MinGroupSize is the fewest awarded projects with both prices a price
// guide's group must hold (docs/market.md#price-guide).
const MinGroupSize = 20

// App is the market's use cases.
type App struct {
	store    domain.Store
	plans    domain.Plans
	projects domain.Projects
	now      func() time.Time
}

// New returns the use cases.
func New(store domain.Store, plans domain.Plans, projects domain.Projects, now func() time.Time) *App {
	if now == nil {
		now = time.Now
	}
	return &App{store: store, plans: plans, projects: projects, now: now}
}

type need int

const (
	needBenchmarks need = iota
	needProfiles
)

// allow checks the caller's tier for a feature; free (and any tier without
// it) is refused with upgrade_required.
func (a *App) allow(ctx context.Context, userID string, n need) (domain.Plan, error) {
	if userID == "" {
		return domain.Plan{}, apperr.New(apperr.Unauthenticated, "authentication-required", "Authentication required")
	}
	p, err := a.plans.Plan(ctx, userID)
	if err != nil {
		return p, err
	}
	if (n == needBenchmarks && !p.Benchmarks) || (n == needProfiles && !p.Profiles) {
		return p, domain.ErrUpgradeRequired
	}
	return p, nil
}

// Benchmarks is GET /market/benchmarks.
func (a *App) Benchmarks(ctx context.Context, userID string, raw domain.RawFilter) (domain.Benchmark, error) {
	f, err := domain.ParseFilter(raw)
	if err != nil {
		return domain.Benchmark{}, err
	}
	if _, err := a.allow(ctx, userID, needBenchmarks); err != nil {
		return domain.Benchmark{}, err
	}
	return a.store.Benchmark(ctx, f)
}

// PriceGuide is a project's guide: its group and the bid's place in it.
type PriceGuide struct {
	Project       domain.ProjectInfo
	Group         domain.Group
	Benchmark     domain.Benchmark
	Reference     *int64 // satang: the reference price, else the budget
	ReferenceKind string
	Bid           *Bid
}

// Bid places a bid in a guide's group.
type Bid struct {
	Price          float64
	Discount, Rank *float64
}

var projectIDRe = regexp.MustCompile(`^\d{11}$`)

// Bases are the price guide's groups, most specific first.
var Bases = []string{"agency_method_category", "agency_method", "method_category", "category"}

func groups(p domain.ProjectInfo) []domain.Group {
	return []domain.Group{
		{Basis: Bases[0], DeptCode: p.DeptCode, MethodCode: p.MethodCode, TypeCode: p.TypeCode},
		{Basis: Bases[1], DeptCode: p.DeptCode, MethodCode: p.MethodCode},
		{Basis: Bases[2], MethodCode: p.MethodCode, TypeCode: p.TypeCode},
		{Basis: Bases[3], TypeCode: p.TypeCode},
	}
}

// PriceGuide is GET /projects/{id}/price-guide.
func (a *App) PriceGuide(ctx context.Context, userID, projectID string, bidPrice *float64) (PriceGuide, error) {
	var out PriceGuide
	if !projectIDRe.MatchString(projectID) {
		return out, domain.ErrInvalidProjectID
	}
	var bidSatang int64
	if bidPrice != nil {
		v := *bidPrice
		if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 || v > 1e13 || math.Abs(v*100-math.Round(v*100)) > 1e-6 {
			return out, domain.ErrInvalidBidPrice
		}
		bidSatang = int64(math.Round(v * 100))
	}
	if _, err := a.allow(ctx, userID, needBenchmarks); err != nil {
		return out, err
	}
	p, ok, err := a.projects.Project(ctx, projectID)
	if err != nil {
		return out, err
	}
	if !ok {
		return out, domain.ErrProjectNotFound
	}
	out.Project = p
	switch {
	case p.Reference != nil && *p.Reference > 0:
		out.Reference, out.ReferenceKind = p.Reference, "reference_price"
	case p.Budget != nil && *p.Budget > 0:
		out.Reference, out.ReferenceKind = p.Budget, "budget"
	}
	var cands []domain.Group
	for _, g := range groups(p) {
		if (g.DeptCode == "" && strings.HasPrefix(g.Basis, "agency")) || (g.MethodCode == "" && strings.Contains(g.Basis, "method")) ||
			(g.TypeCode == "" && strings.HasSuffix(g.Basis, "category")) {
			continue
		}
		cands = append(cands, g)
	}
	// The groups are sized most specific first and the first large enough
	// is taken: the broader ones are not counted (docs/market.md#price-guide).
	out.Group = domain.Group{Basis: "none"}
	for _, g := range cands {
		sizes, err := a.store.GroupSizes(ctx, []domain.Group{g})
		if err != nil {
			return out, err
		}
		if sizes[0] >= MinGroupSize {
			out.Group = g
			break
		}
	}
	if out.Group.Basis != "none" {
		if out.Benchmark, err = a.store.Benchmark(ctx, out.Group.Filter()); err != nil {
			return out, err
		}
	}
	if bidPrice != nil {
		b := &Bid{Price: float64(bidSatang) / 100}
		if out.Reference != nil {
			d, _ := domain.Discount(*out.Reference, bidSatang)
			d = domain.Round2(d)
			b.Discount = &d
			if out.Group.Basis != "none" {
				r, err := a.store.PercentRank(ctx, out.Group.Filter(), d)
				if err != nil {
					return out, err
				}
				r = domain.Round2(r * 100)
				b.Rank = &r
			}
		}
		out.Bid = b
	}
	return out, nil
}

// SearchSuppliers is GET /market/suppliers?q=.
func (a *App) SearchSuppliers(ctx context.Context, userID, q string, limit int) ([]domain.SupplierHit, error) {
	q = strings.TrimSpace(q)
	if limit == 0 {
		limit = 20
	}
	if limit < 1 || limit > 50 {
		return nil, domain.ErrInvalidQuery
	}
	digits := strings.NewReplacer("-", "", " ", "").Replace(q)
	var taxID, nameKey string
	if digits != "" && strings.Trim(digits, "0123456789") == "" && len(digits) >= 10 {
		id, err := domain.ParseTaxID(digits)
		if err != nil {
			return nil, err
		}
		taxID = id
	} else {
		if n := thaitext.RuneLen(q); n < 2 || n > 200 {
			return nil, domain.ErrInvalidQuery
		}
		if nameKey = domain.NameKey(q); nameKey == "" {
			return nil, domain.ErrInvalidQuery
		}
	}
	if _, err := a.allow(ctx, userID, needProfiles); err != nil {
		return nil, err
	}
	return a.store.SearchSuppliers(ctx, nameKey, taxID, limit)
}

// Supplier is GET /market/suppliers/{taxId}; watched says whether the caller watches it.
func (a *App) Supplier(ctx context.Context, userID, taxID string) (s domain.Supplier, watched bool, err error) {
	id, err := domain.ParseTaxID(taxID)
	if err != nil {
		return s, false, err
	}
	if _, err := a.allow(ctx, userID, needProfiles); err != nil {
		return s, false, err
	}
	s, ok, err := a.store.Supplier(ctx, id)
	if err != nil {
		return s, false, err
	}
	if !ok {
		return s, false, domain.ErrSupplierNotFound
	}
	ws, err := a.store.ListWatches(ctx, userID)
	if err != nil {
		return s, false, err
	}
	for _, w := range ws {
		if w.TaxID == id {
			watched = true
		}
	}
	return s, watched, nil
}

var agencyRe = regexp.MustCompile(`^[0-9A-Za-z._-]{1,40}$`)

// Agency is GET /market/agencies/{deptCode}.
func (a *App) Agency(ctx context.Context, userID, code string) (domain.Agency, error) {
	if !agencyRe.MatchString(code) {
		return domain.Agency{}, domain.ErrInvalidAgency
	}
	if _, err := a.allow(ctx, userID, needProfiles); err != nil {
		return domain.Agency{}, err
	}
	ag, ok, err := a.store.Agency(ctx, code)
	if err != nil {
		return ag, err
	}
	if !ok {
		return ag, domain.ErrAgencyNotFound
	}
	return ag, nil
}

// AddWatch is POST /market/watchlist: one more than the tier's
// watchlist_size answers 409 with a detail.
func (a *App) AddWatch(ctx context.Context, userID, taxID string) (domain.Watch, error) {
	id, err := domain.ParseTaxID(taxID)
	if err != nil {
		return domain.Watch{}, err
	}
	p, err := a.allow(ctx, userID, needProfiles)
	if err != nil {
		return domain.Watch{}, err
	}
	if p.WatchlistSize == 0 {
		return domain.Watch{}, domain.ErrUpgradeRequired
	}
	w, full, err := a.store.AddWatch(ctx, userID, id, p.WatchlistSize, a.now())
	if err != nil {
		return w, err
	}
	if full {
		return w, apperr.New(apperr.AlreadyExists, "watchlist-full",
			"Your plan watches at most "+strconv.Itoa(p.WatchlistSize)+" tax ids: remove one first or upgrade")
	}
	return w, nil
}

// Watches is GET /market/watchlist with the tier's limit.
func (a *App) Watches(ctx context.Context, userID string) ([]domain.Watch, int, error) {
	p, err := a.allow(ctx, userID, needProfiles)
	if err != nil {
		return nil, 0, err
	}
	ws, err := a.store.ListWatches(ctx, userID)
	return ws, p.WatchlistSize, err
}

// RemoveWatch is DELETE /market/watchlist/{taxId}.
func (a *App) RemoveWatch(ctx context.Context, userID, taxID string) error {
	id, err := domain.ParseTaxID(taxID)
	if err != nil {
		return err
	}
	if _, err := a.allow(ctx, userID, needProfiles); err != nil {
		return err
	}
	ok, err := a.store.RemoveWatch(ctx, userID, id)
	if err != nil {
		return err
	}
	if !ok {
		return domain.ErrWatchNotFound
	}
	return nil
}

// RecordAward applies an award the projects service published.
func (a *App) RecordAward(ctx context.Context, aw domain.Award) error {
	_, err := a.store.ApplyAward(ctx, aw, a.now())
	return err
}

// WithdrawAward removes an award the projects service withdrew (a
// cancelled winner announcement) from every figure.
func (a *App) WithdrawAward(ctx context.Context, projectID string, at time.Time) error {
	_, err := a.store.WithdrawAward(ctx, projectID, at)
	return err
}

// AlertsPerEvent bounds the awards one CompetitorWon event names.
const AlertsPerEvent = 50

// FlushAlerts sends the pending competitor alerts (a job every few seconds).
func (a *App) FlushAlerts(ctx context.Context) (int, error) {
	return a.store.FlushAlerts(ctx, AlertsPerEvent, a.now())
}

// RefreshRollups recomputes what the latest writes made stale (a job).
func (a *App) RefreshRollups(ctx context.Context) error { return a.store.RefreshRollups(ctx) }

// ForgetUser erases a deleted user's watchlist and alerts (PDPA).
func (a *App) ForgetUser(ctx context.Context, userID string) error {
	return a.store.ForgetUser(ctx, userID)
}
