package postgres

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"bidradar/pkg/thaitext"
	"bidradar/services/projects/internal/domain"
)

// sampler keeps ~SampleSize projects in memory to estimate the selectivity
// of a whole criteria (keywords and filters) in a few milliseconds.
type sampler struct {
	repo    *Repo
	mu      sync.Mutex
	rows    []domain.Project
	grams   map[int32]int32 // trigram code → sample rows holding it
	total   int64           // rows in the table when sampled
	at      time.Time
	writes  int
	loading sync.Mutex
}

func (s *sampler) noteWrites(n int) {
	s.mu.Lock()
	s.writes += n
	s.mu.Unlock()
}

func (s *sampler) get(ctx context.Context) ([]domain.Project, int64, map[int32]int32, error) {
	s.mu.Lock()
	fresh := s.rows != nil && time.Since(s.at) < s.repo.opts.SampleTTL && int64(s.writes) <= s.total/10
	rows, total, grams := s.rows, s.total, s.grams
	s.mu.Unlock()
	if fresh {
		return rows, total, grams, nil
	}
	s.loading.Lock()
	defer s.loading.Unlock()
	s.mu.Lock()
	if s.rows != nil && time.Since(s.at) < s.repo.opts.SampleTTL && int64(s.writes) <= s.total/10 {
		rows, total, grams = s.rows, s.total, s.grams
		s.mu.Unlock()
		return rows, total, grams, nil
	}
	s.mu.Unlock()
	rows, total, err := s.load(ctx)
	if err != nil {
		return nil, 0, nil, err
	}
	grams = gramFrequencies(rows)
	s.mu.Lock()
	s.rows, s.total, s.grams, s.at, s.writes = rows, total, grams, time.Now(), 0
	s.mu.Unlock()
	return rows, total, grams, nil
}

// gramFrequencies counts, for each trigram code, the sample rows holding it
// (~20 ms for 10 000 titles, once per sample).
func gramFrequencies(rows []domain.Project) map[int32]int32 {
	freq := make(map[int32]int32, 1<<15)
	for i := range rows {
		for _, c := range thaitext.Trigrams(rows[i].SearchText) {
			freq[c]++
		}
	}
	return freq
}

// Invalidate drops the sample (after bulk loads).
func (r *Repo) Invalidate() {
	r.sample.mu.Lock()
	r.sample.rows = nil
	r.sample.mu.Unlock()
}

func (s *sampler) load(ctx context.Context) ([]domain.Project, int64, error) {
	var est float64
	if err := s.repo.pool.QueryRow(ctx, `SELECT reltuples FROM pg_class WHERE oid = 'projects'::regclass`).Scan(&est); err != nil {
		return nil, 0, err
	}
	total := int64(est)
	if est < float64(s.repo.opts.SampleSize)*4 {
		if err := s.repo.pool.QueryRow(ctx, `SELECT count(*) FROM projects`).Scan(&total); err != nil {
			return nil, 0, err
		}
	}
	const cols = `id, search_text, method_code, province_code, ministry_code, agency_name, sub_agency_name, status,
		strategy_code, work_type_code, budget_year, announce_types, announced_on, budget, submission_due`
	q := "SELECT " + cols + " FROM projects"
	if total > int64(s.repo.opts.SampleSize) {
		pct := 100 * float64(s.repo.opts.SampleSize) / float64(total)
		q += fmt.Sprintf(" TABLESAMPLE SYSTEM (%.6f) REPEATABLE (1)", pct)
	}
	rows, err := s.repo.pool.Query(ctx, q)
	if err != nil {
		return nil, 0, fmt.Errorf("load sample: %w", err)
	}
	defer rows.Close()
	out := make([]domain.Project, 0, s.repo.opts.SampleSize)
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
		if due != nil {
			d := bangkokDate(*due)
			p.SubmissionDue = &d
		}
		p.Status, p.BudgetYear = domain.Status(st), int(by)
		for _, t := range types {
			p.Announcements = append(p.Announcements, domain.Announcement{Type: domain.AnnouncementType(t)})
		}
		if !announced.Equal(domain.NoDate) {
			p.LastAnnounced = bangkokDate(announced)
		}
		p.Budget, _ = money(budget)
		out = append(out, p)
	}
	return out, total, rows.Err()
}
