package app

import (
	"context"
	"sync"
	"time"

	"bidradar/services/projects/internal/domain"
)

// SavedSearches reads the saved normal searches for instant alerts.
type SavedSearches interface {
	// CriteriaVersion moves whenever a saved search changes.
	CriteriaVersion(ctx context.Context) (int64, error)
	NormalCriteria(ctx context.Context) ([]domain.SavedCriteria, int64, error)
}

// MatchRecorder records the matches not recorded before and publishes
// their alerts; it returns how many matches (search and project) were new.
// asOf is the version of the searches matched (SavedSearches): a search
// deleted since is left out.
type MatchRecorder interface {
	RecordMatches(ctx context.Context, ms []domain.ProjectMatches, asOf int64, now time.Time) (int, error)
}

// ProjectReader reads stored projects.
type ProjectReader interface {
	GetMany(ctx context.Context, ids []string) ([]domain.Project, error)
}

// Alerts matches projects that ingestion created or changed against every
// saved normal search (the instant alerts of DESIGN §7). The searches are
// held in memory as a domain.CriteriaIndex, reloaded when their version
// moves, so every replica sees a new search on its next project.
type Alerts struct {
	projects ProjectReader
	searches SavedSearches
	record   MatchRecorder
	now      func() time.Time

	mu  sync.Mutex
	ix  *domain.CriteriaIndex
	ver int64
}

// NewAlerts returns the matcher; now may be nil (time.Now).
func NewAlerts(projects ProjectReader, searches SavedSearches, record MatchRecorder, now func() time.Time) *Alerts {
	if now == nil {
		now = time.Now
	}
	return &Alerts{projects: projects, searches: searches, record: record, now: now, ver: -1}
}

func (a *Alerts) index(ctx context.Context) (*domain.CriteriaIndex, int64, error) {
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

// Warm loads the searches now, so the first projects after a start do
// not wait for them (100,000 searches take ~0.5 s to read and index).
func (a *Alerts) Warm(ctx context.Context) error {
	_, _, err := a.index(ctx)
	return err
}

// MatchProjects matches the stored projects among ids and records each new
// match once; it returns how many alerts it wrote.
func (a *Alerts) MatchProjects(ctx context.Context, ids []string) (int, error) {
	ix, ver, err := a.index(ctx)
	if err != nil || ix.Len() == 0 {
		return 0, err
	}
	ps, err := a.projects.GetMany(ctx, ids)
	if err != nil {
		return 0, err
	}
	var ms []domain.ProjectMatches
	for i := range ps {
		if found := ix.MatchKeys(&ps[i]); len(found) > 0 {
			ms = append(ms, domain.ProjectMatches{Project: &ps[i], Keys: found})
		}
	}
	return a.record.RecordMatches(ctx, ms, ver, a.now())
}
