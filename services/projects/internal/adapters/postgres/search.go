package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"bidradar/services/projects/internal/domain"
)

// Search implements domain.ProjectRepository: the plan is chosen from the
// sample (search_plan.go), the page query rendered for it (search_sql.go)
// and run under its settings in a read-only transaction; the page's rows
// are then read by id and the total counted when the page does not prove it.
func (r *Repo) Search(ctx context.Context, c domain.Criteria, pr domain.PageRequest) (domain.ResultPage, error) {
	c, t, pr, err := searchDefaults(c, pr)
	if err != nil {
		return domain.ResultPage{}, err
	}
	var after *cursor
	offset := (pr.Page - 1) * pr.PerPage
	if pr.After != "" {
		cur, err := decodeCursor(pr.After)
		if err != nil {
			return domain.ResultPage{}, err
		}
		after, offset = &cur, 0
	}
	a, err := r.analyse(ctx, c, t, offset+pr.PerPage)
	if err != nil {
		return domain.ResultPage{}, err
	}
	out := domain.ResultPage{Page: pr.Page, PerPage: pr.PerPage, Plan: a.Plan}

	// With a bitmap plan every match is read and sorted anyway: a window
	// count gives the exact total for free (not after a cursor, whose
	// keyset condition narrows the rows). SortDeadline's two parts count
	// apart.
	windowCount := (a.Plan == PlanBitmap || a.Plan == PlanIDs || a.Plan == PlanDue) && after == nil && c.Sort != domain.SortDeadline
	countCol := "0::bigint"
	if windowCount {
		countCol = "count(*) OVER ()"
	}
	b := builder{freq: a.gramFreq}
	q := b.pageQuery(b.where(c, t, a), c, t, after, offset, pr.PerPage, countCol)

	page := func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, planSettings(a.Plan)); err != nil {
			return err
		}
		if err := explain(ctx, tx, q, b.args); err != nil {
			return err
		}
		keys, windowTotal, err := readPage(ctx, tx, q, b.args)
		if err != nil {
			return err
		}
		if len(keys) > pr.PerPage {
			out.NextCursor = encodeCursor(cursorAfter(c.Sort, keys[pr.PerPage-1]))
			keys = keys[:pr.PerPage]
		}
		ids := make([]string, len(keys))
		for i, k := range keys {
			ids[i] = k.id
		}
		if out.Items, err = r.byIDs(ctx, tx, ids); err != nil {
			return err
		}
		if windowCount && windowTotal >= 0 {
			out.Total = int(windowTotal)
			return nil
		}
		if windowCount && len(out.Items) == 0 && offset == 0 {
			out.Total = 0
			return nil
		}
		return r.count(ctx, tx, c, t, a, &out, offset)
	}
	// On the read replica when it serves (docs/architecture.md#beyond-one-machine).
	err = r.reads.Read(ctx, func(pool *pgxpool.Pool) error {
		out.Items, out.NextCursor, out.Total = nil, "", 0
		return pgx.BeginTxFunc(ctx, pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, page)
	})
	if err != nil {
		return domain.ResultPage{}, fmt.Errorf("search: %w", err)
	}
	return out, nil
}

// searchDefaults validates c and fills the defaults of a search: 10 rows a
// page (at most 100) from page 1, newest first; relevance with one keyword
// sorts by date (every match scores the same).
func searchDefaults(c domain.Criteria, pr domain.PageRequest) (domain.Criteria, domain.Terms, domain.PageRequest, error) {
	if err := c.Validate(); err != nil {
		return c, domain.Terms{}, pr, err
	}
	if pr.PerPage <= 0 {
		pr.PerPage = 10
	}
	if pr.PerPage > 100 {
		pr.PerPage = 100
	}
	if pr.Page <= 0 {
		pr.Page = 1
	}
	if c.Sort == "" {
		c.Sort = domain.SortDate
	}
	t := c.Terms()
	if c.Sort == domain.SortRelevance && len(t.Positive()) <= 1 {
		c.Sort = domain.SortDate // one keyword: every match scores the same
	}
	return c, t, pr, nil
}

// readPage runs the page query q: the rows' positions and the window count
// (-1 when there are no rows).
func readPage(ctx context.Context, tx pgx.Tx, q string, args []any) ([]pageKey, int64, error) {
	rows, err := tx.Query(ctx, q, args...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var keys []pageKey
	windowTotal := int64(-1)
	for rows.Next() {
		var k pageKey
		var key pgtype.Numeric
		if err := rows.Scan(&k.id, &k.date, &key, &windowTotal); err != nil {
			return nil, 0, err
		}
		k.key, _ = money(key)
		keys = append(keys, k)
	}
	return keys, windowTotal, rows.Err()
}

// byIDs reads the projects ids in that order.
func (r *Repo) byIDs(ctx context.Context, tx pgx.Tx, ids []string) ([]domain.Project, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	rows, err := tx.Query(ctx, "SELECT "+readColumns+" FROM projects WHERE id = ANY($1::text[])", ids)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	got := make(map[string]domain.Project, len(ids))
	for rows.Next() {
		p, err := scanProject(rows)
		if err != nil {
			return nil, err
		}
		got[p.ID] = p
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]domain.Project, 0, len(ids))
	for _, id := range ids {
		if p, ok := got[id]; ok {
			out = append(out, p)
		}
	}
	return out, nil
}

// count fills the total: exact up to the cap, an estimate above it.
func (r *Repo) count(ctx context.Context, tx pgx.Tx, c domain.Criteria, t domain.Terms, a Analysis, out *domain.ResultPage, offset int) error {
	capN := r.opts.TotalCap
	// The page itself may already prove the total.
	if out.NextCursor == "" && (len(out.Items) > 0 || offset == 0) {
		out.Total = offset + len(out.Items)
		return nil
	}
	// Above the cap by the sample's estimate: counting would cost a scan of
	// every match (and of every row sharing its trigrams); show the estimate.
	if a.SampleSize > 0 && a.Estimate > float64(capN) && a.Fraction*float64(a.SampleSize) >= 10 {
		out.Total, out.TotalEstimated = roundEstimate(a.Estimate), true
		return nil
	}
	ca := a
	if (ca.Plan == PlanWalk || ca.Plan == PlanFilter) && ca.Drive != -2 {
		ca.Plan = PlanBitmap
	}
	b := builder{freq: a.gramFreq}
	where := b.where(c, t, ca)
	if _, err := tx.Exec(ctx, planSettings(ca.Plan)); err != nil {
		return err
	}
	var n int
	cq := "SELECT count(*) FROM (SELECT 1 FROM projects WHERE " + where + " LIMIT " + strconv.Itoa(capN+1) + ") s"
	if err := explain(ctx, tx, cq, b.args); err != nil {
		return err
	}
	if err := tx.QueryRow(ctx, cq, b.args...).Scan(&n); err != nil {
		return err
	}
	if n > capN {
		est := a.Estimate
		if est <= float64(capN) {
			est = float64(capN + 1)
		}
		out.Total, out.TotalEstimated = roundEstimate(est), true
		return nil
	}
	out.Total = n
	return nil
}

func roundEstimate(v float64) int {
	switch {
	case v >= 100000:
		return int(v/10000+0.5) * 10000
	case v >= 10000:
		return int(v/1000+0.5) * 1000
	default:
		return int(v/100+0.5) * 100
	}
}

type explainKey struct{}

// WithExplain returns a context under which Search also runs EXPLAIN
// (ANALYZE, BUFFERS) of each statement it executes and appends the SQL and
// plans to *out (benchmarks and diagnosis only).
func WithExplain(ctx context.Context, out *[]string) context.Context {
	return context.WithValue(ctx, explainKey{}, out)
}

func explain(ctx context.Context, tx pgx.Tx, q string, args []any) error {
	out, _ := ctx.Value(explainKey{}).(*[]string)
	if out == nil {
		return nil
	}
	rows, err := tx.Query(ctx, "EXPLAIN (ANALYZE, BUFFERS) "+q, args...)
	if err != nil {
		return err
	}
	lines := []string{q, fmt.Sprint(args)}
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			rows.Close()
			return err
		}
		lines = append(lines, l)
	}
	rows.Close()
	*out = append(*out, strings.Join(lines, "\n"))
	return rows.Err()
}
