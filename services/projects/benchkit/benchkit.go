// Package benchkit exposes what bench/search needs from the projects
// service: bulk loading of generated projects, the search handler without
// auth, the in-memory oracle, and the naive ILIKE baseline.
package benchkit

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"bidradar/gen/projects/v1/projectsv1connect"
	"bidradar/pkg/server"
	"bidradar/services/projects/internal/adapters/interestsclient"
	"bidradar/services/projects/internal/adapters/postgres"
	"bidradar/services/projects/internal/demo"
	"bidradar/services/projects/internal/domain"
	"bidradar/services/projects/internal/ports"
	"bidradar/services/projects/projectssvc"
)

// Row is what the oracle keeps per project.
type Row struct {
	P domain.Project
}

// Generate returns generated project i (seed fixed).
func Generate(seed uint64, i int) domain.Project {
	return GenerateAt(seed, i, time.Date(2026, 9, 30, 0, 0, 0, 0, domain.Bangkok))
}

// GenerateFresh is generated project i moved in time so that its newest
// step falls within the 6 days before asOf (its other dates moved alike):
// a bulk import of current data, all of which may raise instant alerts.
func GenerateFresh(seed uint64, i int, asOf time.Time) domain.Project {
	p := GenerateAt(seed, i, asOf)
	if len(p.Announcements) == 0 {
		return p
	}
	latest := p.Announcements[0].Date
	for _, a := range p.Announcements {
		if a.Date.After(latest) {
			latest = a.Date
		}
	}
	shift := asOf.Add(-time.Duration(i%6) * 24 * time.Hour).Sub(latest)
	for j := range p.Announcements {
		p.Announcements[j].Date = p.Announcements[j].Date.Add(shift)
	}
	for _, t := range []**time.Time{&p.SubmissionDue, &p.HearingDue, &p.ContractSigned, &p.ContractEnd} {
		if *t != nil {
			v := (**t).Add(shift)
			*t = &v
		}
	}
	p.Derive()
	return p
}

// GenerateAt is Generate with the data's dates ending at asOf: an import
// as of now is new data, which raises instant alerts (old data does not:
// docs/product.md#instant-alerts).
func GenerateAt(seed uint64, i int, asOf time.Time) domain.Project {
	return demo.New(seed, asOf).Project(i)
}

// Load inserts generated projects [0, n) with COPY, the GIN indexes dropped
// during the load and rebuilt after (as a bulk import would).
func Load(ctx context.Context, pool *pgxpool.Pool, seed uint64, n int, progress func(done int)) error {
	// the GIN indexes as the migrations define them
	var ginDefs []string
	rows, err := pool.Query(ctx, `SELECT indexrelid::regclass::text, pg_get_indexdef(indexrelid) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
		JOIN pg_am am ON am.oid = c.relam WHERE i.indrelid = 'projects'::regclass AND am.amname = 'gin'`)
	if err != nil {
		return err
	}
	var ginNames []string
	for rows.Next() {
		var name, def string
		if err := rows.Scan(&name, &def); err != nil {
			rows.Close()
			return err
		}
		ginNames, ginDefs = append(ginNames, name), append(ginDefs, def)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, ix := range ginNames {
		if _, err := pool.Exec(ctx, "DROP INDEX IF EXISTS "+ix); err != nil {
			return err
		}
	}
	const chunk = 20000
	jobs := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	done := 0
	g := demo.New(seed, time.Date(2026, 9, 30, 0, 0, 0, 0, domain.Bangkok))
	for w := 0; w < runtime.NumCPU(); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for start := range jobs {
				end := min(start+chunk, n)
				ps := make([]domain.Project, 0, end-start)
				for i := start; i < end; i++ {
					ps = append(ps, g.Project(i))
				}
				err := pool.AcquireFunc(ctx, func(c *pgxpool.Conn) error {
					return postgres.CopyProjects(ctx, c.Conn(), "projects", ps)
				})
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				done += end - start
				if progress != nil {
					progress(done)
				}
				mu.Unlock()
			}
		}()
	}
	for s := 0; s < n; s += chunk {
		jobs <- s
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	for _, q := range append(append([]string{"SET maintenance_work_mem = '2GB'"}, ginDefs...), "RESET maintenance_work_mem", "VACUUM ANALYZE projects") {
		if _, err := conn.Exec(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

// Handler returns the projects connect handler (no auth: benchmark only)
// and the repository behind it.
func Handler(pool *pgxpool.Pool, log *slog.Logger) (http.Handler, error) {
	return HandlerWithInterests(pool, log, "")
}

// HandlerWithInterests is Handler with the users' marks read from the
// interests service at interestsTarget (host:port, h2c); the caller's
// identity is whatever claims the request context carries.
func HandlerWithInterests(pool *pgxpool.Pool, log *slog.Logger, interestsTarget string) (http.Handler, error) {
	d, err := projectssvc.NewDeps(pool, log, postgres.Options{})
	if err != nil {
		return nil, err
	}
	if interestsTarget != "" {
		d.App.SetInterests(interestsclient.New(server.H2CClient(), interestsTarget, 5*time.Second)) // interestskit serves without the authn interceptor
	}
	h := ports.NewHandler(d.App, nil, nil)
	// The generated projects end on 30 Sep 2026: deadlines count from Today.
	h.SetClock(func() time.Time { return Today })
	mux := http.NewServeMux()
	mux.Handle(projectsv1connect.NewProjectsServiceHandler(h))
	return mux, nil
}

// Today is the day the benchmark's deadline filters and order count from:
// ten days before the generated data ends, so that about a month of tenders
// still takes bids (~3 300 at 1 M projects).
var Today = time.Date(2026, 9, 20, 12, 0, 0, 0, domain.Bangkok)

// TotalCap is the service's default cap for exact totals.
const TotalCap = postgres.DefaultTotalCap

// Criteria is the search form.
type Criteria = domain.Criteria

// Oracle is a brute-force substring search over every row in memory.
type Oracle struct{ Rows []domain.Project }

// NewOracle generates the n rows again (without steps, to save memory).
func NewOracle(seed uint64, n int) *Oracle {
	o := &Oracle{Rows: make([]domain.Project, n)}
	g := demo.New(seed, time.Date(2026, 9, 30, 0, 0, 0, 0, domain.Bangkok))
	var wg sync.WaitGroup
	w := runtime.NumCPU()
	for k := 0; k < w; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := k; i < n; i += w {
				p := g.Project(i)
				types := make([]domain.Announcement, len(p.Announcements))
				for j, a := range p.Announcements {
					types[j] = domain.Announcement{Type: a.Type}
				}
				o.Rows[i] = domain.Project{ID: p.ID, SearchText: p.SearchText, MethodCode: p.MethodCode, ProvinceCode: p.ProvinceCode,
					MinistryCode: p.MinistryCode, AgencyName: p.AgencyName, SubAgencyName: p.SubAgencyName, Status: p.Status,
					StrategyCode: p.StrategyCode, WorkTypeCode: p.WorkTypeCode, BudgetYear: p.BudgetYear, Announcements: types,
					LastAnnounced: p.LastAnnounced, Budget: p.Budget, SubmissionDue: p.SubmissionDue}
			}
		}()
	}
	wg.Wait()
	return o
}

// Search returns the total and the first k ids in result order.
func (o *Oracle) Search(c domain.Criteria, k int) (int, []string) {
	if (c.ClosingWithin > 0 || c.Sort == domain.SortDeadline) && c.Today.IsZero() {
		c.Today = Today
	}
	m := domain.NewMatcher(c)
	var hits []*domain.Project
	for i := range o.Rows {
		if m.Match(&o.Rows[i]) {
			hits = append(hits, &o.Rows[i])
		}
	}
	s := c.Sort
	if s == "" || (s == domain.SortRelevance && len(c.Terms().Positive()) <= 1) {
		s = domain.SortDate
	}
	sort.Slice(hits, func(i, j int) bool { return m.Less(s, hits[i], hits[j]) })
	ids := make([]string, 0, k)
	for i := 0; i < len(hits) && i < k; i++ {
		ids = append(ids, hits[i].ID)
	}
	return len(hits), ids
}

// Naive runs the naive baseline: name ILIKE '%kw%' for every keyword (no
// normalisation, no index on name), one page by date plus an exact count.
func Naive(ctx context.Context, pool *pgxpool.Pool, c domain.Criteria, perPage int) (time.Duration, error) {
	t := c.Terms()
	var conds []string
	var args []any
	add := func(s string, v any) {
		args = append(args, v)
		conds = append(conds, strings.ReplaceAll(s, "?", "$"+itoa(len(args))))
	}
	for _, k := range t.All {
		add("name ILIKE ?", "%"+k+"%")
	}
	if len(t.Any) > 0 {
		var ors []string
		for _, k := range t.Any {
			args = append(args, "%"+k+"%")
			ors = append(ors, "name ILIKE $"+itoa(len(args)))
		}
		conds = append(conds, "("+strings.Join(ors, " OR ")+")")
	}
	for _, k := range t.None {
		add("name NOT ILIKE ?", "%"+k+"%")
	}
	if len(c.Provinces) > 0 {
		add("province_code = ANY(?)", c.Provinces)
	}
	if len(c.Methods) > 0 {
		add("method_code = ANY(?)", c.Methods)
	}
	if len(c.Statuses) > 0 {
		add("status = ANY(?)", c.Statuses)
	}
	if c.ClosingWithin > 0 {
		add("submission_due >= ?::date", domain.DateKey(Today))
		add("submission_due <= ?::date", domain.DateKey(Today).AddDate(0, 0, c.ClosingWithin-1))
	}
	where := "TRUE"
	if len(conds) > 0 {
		where = strings.Join(conds, " AND ")
	}
	start := time.Now()
	rows, err := pool.Query(ctx, "SELECT id, name FROM projects WHERE "+where+" ORDER BY announced_on DESC, id DESC LIMIT "+itoa(perPage), args...)
	if err != nil {
		return 0, err
	}
	rows.Close()
	var n int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM projects WHERE "+where, args...).Scan(&n); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

func itoa(n int) string {
	return fmtInt(n)
}

func fmtInt(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}

// Explain runs the search for c (first page of perPage) with EXPLAIN
// (ANALYZE, BUFFERS) of every statement, and returns the chosen plan and
// the SQL with its plans.
func Explain(ctx context.Context, pool *pgxpool.Pool, c domain.Criteria, perPage int) (string, []string, error) {
	var out []string
	if (c.ClosingWithin > 0 || c.Sort == domain.SortDeadline) && c.Today.IsZero() {
		c.Today = Today
	}
	res, err := postgres.New(pool, nil, postgres.Options{}).Search(postgres.WithExplain(ctx, &out), c, domain.PageRequest{PerPage: perPage})
	return res.Plan, out, err
}
