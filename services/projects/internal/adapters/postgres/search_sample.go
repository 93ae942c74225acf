package postgres

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"bidradar/services/projects/internal/domain"
)

// sampler keeps ~SampleSize projects in memory to estimate the selectivity
// of a whole criteria (keywords and filters) in a few milliseconds.
type sampler struct {
	repo    *Repo
	mu      sync.Mutex
	ix      *sampleIndex // nil until loaded, or after Invalidate
	at      time.Time
	writes  int
	gen     int // Invalidate's count: a load begun before it is not installed
	loading sync.Mutex
}

func (s *sampler) noteWrites(n int) {
	s.mu.Lock()
	s.writes += n
	s.mu.Unlock()
}

// fresh reports whether the sample can be reused (s.mu held).
func (s *sampler) fresh() bool {
	return s.ix != nil && time.Since(s.at) < s.repo.opts.SampleTTL && int64(s.writes) <= s.ix.total/10
}

// get returns the sample, loading it when there is none. A stale sample of
// a large table is still returned while a new one loads in the background:
// at 10 M projects a load reads 50 000 rows (~1 s), which every search
// arriving meanwhile would otherwise wait for. A small table's sample (the
// whole table, or a few of its pages) reloads at once, so that a search
// right after a write plans on it.
func (s *sampler) get(ctx context.Context) (*sampleIndex, error) {
	s.mu.Lock()
	ix, ok := s.ix, s.fresh()
	s.mu.Unlock()
	if ok {
		return ix, nil
	}
	if ix != nil && !s.repo.smallTable(ix.total) {
		if s.loading.TryLock() {
			go func() {
				defer s.loading.Unlock()
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
				defer cancel()
				if err := s.reload(ctx); err != nil {
					slog.Warn("search sample: reload failed, the old one stays", "err", err)
				}
			}()
		}
		return ix, nil
	}
	s.loading.Lock()
	defer s.loading.Unlock()
	s.mu.Lock()
	ix, ok = s.ix, s.fresh()
	s.mu.Unlock()
	if ok {
		return ix, nil
	}
	for {
		if err := s.reload(ctx); err != nil {
			return nil, err
		}
		s.mu.Lock()
		cur := s.ix
		s.mu.Unlock()
		if cur != nil {
			return cur, nil
		}
		// invalidated while loading: load again (reload ends with ctx)
	}
}

// reload loads a new sample and makes it current (s.loading held), unless
// the table was invalidated meanwhile: a background load may have read the
// table before a bulk load ended, and the next search then loads again.
func (s *sampler) reload(ctx context.Context) error {
	s.mu.Lock()
	gen := s.gen
	s.mu.Unlock()
	rows, total, err := s.load(ctx)
	if err != nil {
		return err
	}
	ix := newSampleIndex(rows, total)
	s.mu.Lock()
	if s.gen == gen {
		s.ix, s.at, s.writes = ix, time.Now(), 0
	}
	s.mu.Unlock()
	return nil
}

// smallTable: a table of total rows is under 4× its sample: it is counted
// exactly when sampled, and its sample (most or all of it) reloads at once
// instead of in the background.
func (r *Repo) smallTable(total int64) bool {
	return total < 4*int64(r.sampleSize(total))
}

// The bounds of the automatic sample (Options.SampleSize 0).
const (
	minSampleSize = 10000
	maxSampleSize = 50000
)

// sampleSize is the sample to keep of a table of total rows: 1 % of it,
// between 10 000 and 50 000 rows, unless Options.SampleSize fixes it.
// At 10 M projects a filtered keyword with ~6 000 matches (a keyword, a
// province and a method) has ~6 rows in 10 000, too few to estimate its
// total, so it was counted (a GIN scan of ~50 ms); 50 000 rows hold ~30.
// The bound is memory: a sample row costs ~1 kB in each process.
func (r *Repo) sampleSize(total int64) int {
	if r.opts.SampleSize > 0 {
		return r.opts.SampleSize
	}
	return int(min(max(total/100, minSampleSize), maxSampleSize))
}

// Invalidate drops the sample (after bulk loads).
func (r *Repo) Invalidate() {
	r.sample.mu.Lock()
	r.sample.ix = nil
	r.sample.gen++
	r.sample.mu.Unlock()
}

func (s *sampler) load(ctx context.Context) ([]domain.Project, int64, error) {
	var est float64
	if err := s.repo.pool.QueryRow(ctx, `SELECT reltuples FROM pg_class WHERE oid = 'projects'::regclass`).Scan(&est); err != nil {
		return nil, 0, err
	}
	total := int64(est)
	if s.repo.smallTable(total) {
		if err := s.repo.pool.QueryRow(ctx, `SELECT count(*) FROM projects`).Scan(&total); err != nil {
			return nil, 0, err
		}
	}
	size := s.repo.sampleSize(total)
	const cols = `id, search_text, method_code, province_code, ministry_code, agency_name, sub_agency_name, status,
		strategy_code, work_type_code, budget_year, announce_types, announced_on, budget, submission_due`
	q := "SELECT " + cols + " FROM projects"
	if total > int64(size) {
		pct := 100 * float64(size) / float64(total)
		q += fmt.Sprintf(" TABLESAMPLE SYSTEM (%.6f) REPEATABLE (1)", pct)
	}
	rows, err := s.repo.pool.Query(ctx, q)
	if err != nil {
		return nil, 0, fmt.Errorf("load sample: %w", err)
	}
	defer rows.Close()
	out := make([]domain.Project, 0, size)
	for rows.Next() {
		var p domain.Project
		var st string
		var by int32
		var types []string
		var announced time.Time
		var budget pgtype.Numeric
		var due *time.Time
		if err := rows.Scan(&p.ID, &p.SearchText, &p.MethodCode, &p.ProvinceCode, &p.MinistryCode, &p.AgencyName, &p.SubAgencyName,
			&st, &p.StrategyCode, &p.WorkTypeCode, &by, &types, &announced, &budget, &due); err != nil {
			return nil, 0, err
		}
		p.SubmissionDue = bangkokDay(due)
		p.Status, p.BudgetYear = domain.Status(st), int(by)
		for _, t := range types {
			p.Announcements = append(p.Announcements, domain.Announcement{Type: domain.AnnouncementType(t)})
		}
		p.LastAnnounced = lastAnnounced(announced)
		p.Budget, _ = money(budget)
		out = append(out, p)
	}
	return out, total, rows.Err()
}
