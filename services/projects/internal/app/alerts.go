package app

import (
	"context"
	"sync"

	"bidradar/services/projects/internal/domain"
)

// Alerts holds the saved normal searches in memory as a
// domain.CriteriaIndex for the instant alerts (docs/product.md#instant-alerts), reloaded when
// their version moves, so every process that writes projects sees a new
// search on its next batch. The writes match against it in their own
// transaction (domain.SearchIndex): a project is committed with its alerts.
type Alerts struct {
	searches domain.SavedSearches

	mu  sync.Mutex
	ix  *domain.CriteriaIndex
	ver int64
}

// NewAlerts returns the index of searches, loaded on first use.
func NewAlerts(searches domain.SavedSearches) *Alerts {
	return &Alerts{searches: searches, ver: -1}
}

// Searches implements domain.SearchIndex: the index and the version it
// holds, reloaded first when a search changed since (one small query a
// call while none did).
func (a *Alerts) Searches(ctx context.Context) (*domain.CriteriaIndex, int64, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	v, err := a.searches.CriteriaVersion(ctx)
	if err != nil {
		return nil, 0, err
	}
	if a.ix != nil && v == a.ver {
		return a.ix, a.ver, nil
	}
	saved, v, err := a.searches.NormalCriteria(ctx)
	if err != nil {
		return nil, 0, err
	}
	a.ix, a.ver = domain.NewCriteriaIndex(saved), v
	return a.ix, a.ver, nil
}

// Warm loads the searches now if they changed, so that a write does not
// wait for them (100,000 searches take ~0.5 s to read and index).
func (a *Alerts) Warm(ctx context.Context) error {
	_, _, err := a.Searches(ctx)
	return err
}
