package postgres

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"bidradar/services/projects/internal/domain"
)

// Search implements domain.ProjectRepository: the plan is chosen from the
// sample (search_plan.go) and the page query rendered for it
// (search_sql.go). One round trip to PostgreSQL then does the rest: a
// pgx.Batch, which the server runs as one implicit transaction, sets the
// plan's settings (local to that transaction) and runs one statement that
// reads the page's positions and joins the page's rows by id; when only an
// exact count can give the total (no window count, no estimate) and the
// sample expects a full page, the count's settings and the count follow in
// the same batch, used only when the page does not prove the total. (It was BEGIN, set_config,
// page, rows by id, [set_config, count,] COMMIT: five to seven round trips;
// docs/architecture.md#planner.)
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
	page := stmt{settings: planSettings(a.Plan)}
	page.sql = pageRowsQuery(b.pageQuery(b.where(c, t, a), c, t, after, offset, pr.PerPage, countCol), pr.PerPage)
	page.args = b.args
	// The count rides along when the sample expects a full page (then only
	// counting can give the total); a short page proves its total and would
	// waste it (a walk plan's count, of a 1-character keyword, walks as far
	// as its page did).
	var count *stmt
	if !windowCount && !r.estimable(a) && a.Estimate > float64(offset+pr.PerPage) {
		count = r.countStmt(c, t, a)
	}

	var out domain.ResultPage
	// On the read replica when it serves (docs/architecture.md#beyond-one-machine).
	err = r.reads.Read(ctx, func(pool *pgxpool.Pool) error {
		out = domain.ResultPage{Page: pr.Page, PerPage: pr.PerPage, Plan: a.Plan}
		res, err := runSearch(ctx, pool, page, count, pr.PerPage)
		if err != nil {
			return err
		}
		out.Items = res.items
		if len(res.keys) > pr.PerPage {
			out.NextCursor = encodeCursor(cursorAfter(c.Sort, res.keys[pr.PerPage-1]))
		}
		switch {
		case windowCount && res.windowTotal >= 0:
			out.Total = int(res.windowTotal)
		case windowCount && len(out.Items) == 0 && offset == 0:
			out.Total = 0
		case out.NextCursor == "" && (len(out.Items) > 0 || offset == 0):
			// the page itself proves the total
			out.Total = offset + len(out.Items)
		case r.estimable(a):
			// Above the cap by the sample's estimate: counting would cost a
			// scan of every match (and of every row sharing its trigrams).
			out.Total, out.TotalEstimated = roundEstimate(a.Estimate), true
		default:
			n := res.count
			if !res.counted {
				// a full page the sample did not expect, or a page past
				// the end of a window-counted search: a second round trip
				if n, err = runCount(ctx, pool, r.countStmt(c, t, a)); err != nil {
					return err
				}
			}
			out.Total = n
			if capN := r.opts.TotalCap; n > capN {
				est := a.Estimate
				if est <= float64(capN) {
					est = float64(capN + 1)
				}
				out.Total, out.TotalEstimated = roundEstimate(est), true
			}
		}
		return nil
	})
	if err != nil {
		return domain.ResultPage{}, fmt.Errorf("search: %w", err)
	}
	return out, nil
}

// estimable: the sample's estimate is above the cap with confidence, so
// that it is shown ("about N") instead of counting: the estimate rests on
// at least 10 sample rows, and even those rows less two standard deviations
// (√rows, as for a Poisson count) estimate more than the cap. A total the
// spec wants exact (at most the cap) is then estimated by chance in under
// 1 % of samples at the cap itself, and almost never below it: with the
// estimate alone above the cap, 583 matches among 1 M projects, 10 rows of
// a 10 000-row sample, were shown as "about 1,000".
func (r *Repo) estimable(a Analysis) bool {
	rows := a.Fraction * float64(a.SampleSize)
	return a.SampleSize > 0 && rows >= 10 && a.Estimate*(1-2/math.Sqrt(rows)) > float64(r.opts.TotalCap)
}

// stmt is one statement of a search with the plan settings it runs under.
type stmt struct {
	settings string
	sql      string
	args     []any
}

// explainIn sets s's plan settings in tx and records its EXPLAIN
// (WithExplain: statement by statement, in a transaction).
func (s stmt) explainIn(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, s.settings); err != nil {
		return err
	}
	return explain(ctx, tx, s.sql, s.args)
}

// countStmt counts the matches of c up to the cap + 1 (a walk plan counts
// with the bitmap: it has no page order to keep).
func (r *Repo) countStmt(c domain.Criteria, t domain.Terms, a Analysis) *stmt {
	ca := a
	if (ca.Plan == PlanWalk || ca.Plan == PlanFilter) && ca.Drive != -2 {
		ca.Plan = PlanBitmap
	}
	b := builder{freq: a.gramFreq}
	where := b.where(c, t, ca)
	return &stmt{
		settings: planSettings(ca.Plan),
		sql:      "SELECT count(*) FROM (SELECT 1 FROM projects WHERE " + where + " LIMIT " + strconv.Itoa(r.opts.TotalCap+1) + ") s",
		args:     b.args,
	}
}

// pageRowsQuery wraps the page query q (id, date, sort key, window count of
// up to perPage+1 rows, in page order) so that the same statement returns
// the page's rows: each of the first perPage positions joined to its
// project by primary key (the extra row only tells that a next page
// exists; its project columns come back NULL). The positions are numbered in q's
// order and the result sorted by that number.
func pageRowsQuery(q string, perPage int) string {
	return "SELECT k.id, k.d, k.key, k.n, p.* FROM (SELECT q.*, row_number() OVER () AS rn FROM (" + q +
		") q(id, d, key, n)) k LEFT JOIN LATERAL (SELECT " + listColumns +
		" FROM projects WHERE projects.id = k.id AND k.rn <= " + strconv.Itoa(perPage) + ") p ON true ORDER BY k.rn"
}

// searchResult is what the search's round trip read.
type searchResult struct {
	keys        []pageKey
	items       []domain.Project
	windowTotal int64 // -1 without rows
	count       int
	counted     bool
}

// runSearch runs the page statement, and count when not nil, on pool: in
// one batch (one round trip), or in a read-only transaction statement by
// statement under WithExplain.
func runSearch(ctx context.Context, pool *pgxpool.Pool, page stmt, count *stmt, perPage int) (searchResult, error) {
	var res searchResult
	if _, ok := ctx.Value(explainKey{}).(*[]string); ok {
		err := pgx.BeginTxFunc(ctx, pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
			res = searchResult{}
			if err := page.explainIn(ctx, tx); err != nil {
				return err
			}
			rows, err := tx.Query(ctx, page.sql, page.args...)
			if err != nil {
				return err
			}
			if err := res.readPage(rows, perPage); err != nil {
				return err
			}
			if count == nil || len(res.keys) <= perPage {
				return nil // only a full page needs the count
			}
			if err := count.explainIn(ctx, tx); err != nil {
				return err
			}
			res.counted = true
			return tx.QueryRow(ctx, count.sql, count.args...).Scan(&res.count)
		})
		return res, err
	}
	batch := &pgx.Batch{}
	batch.Queue(page.settings)
	batch.Queue(page.sql, page.args...)
	if count != nil {
		batch.Queue(count.settings)
		batch.Queue(count.sql, count.args...)
	}
	br := pool.SendBatch(ctx, batch)
	err := func() error {
		if _, err := br.Exec(); err != nil {
			return err
		}
		rows, err := br.Query()
		if err != nil {
			return err
		}
		if err := res.readPage(rows, perPage); err != nil {
			return err
		}
		if count == nil {
			return nil
		}
		if _, err := br.Exec(); err != nil {
			return err
		}
		res.counted = true
		return br.QueryRow().Scan(&res.count)
	}()
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return res, err
}

// runCount runs count alone, in one round trip (in a transaction under
// WithExplain).
func runCount(ctx context.Context, pool *pgxpool.Pool, count *stmt) (int, error) {
	var n int
	if _, ok := ctx.Value(explainKey{}).(*[]string); ok {
		err := pgx.BeginTxFunc(ctx, pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
			if err := count.explainIn(ctx, tx); err != nil {
				return err
			}
			return tx.QueryRow(ctx, count.sql, count.args...).Scan(&n)
		})
		return n, err
	}
	batch := &pgx.Batch{}
	batch.Queue(count.settings)
	batch.Queue(count.sql, count.args...)
	br := pool.SendBatch(ctx, batch)
	_, err := br.Exec()
	if err == nil {
		err = br.QueryRow().Scan(&n)
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// readPage reads pageRowsQuery's rows: the positions, the window count and
// the first perPage projects, in page order.
func (res *searchResult) readPage(rows pgx.Rows, perPage int) error {
	defer rows.Close()
	res.windowTotal = -1
	for rows.Next() {
		var k pageKey
		var key pgtype.Numeric
		pre := []any{&k.id, &k.date, &key, &res.windowTotal}
		if len(res.keys) < perPage {
			p, err := scanListRow(prefixedRow{rows, pre})
			if err != nil {
				return err
			}
			res.items = append(res.items, p)
		} else {
			dest := make([]any, len(rows.FieldDescriptions()))
			copy(dest, pre)
			if err := rows.Scan(dest...); err != nil {
				return err
			}
		}
		k.key, _ = money(key)
		res.keys = append(res.keys, k)
	}
	return rows.Err()
}

// prefixedRow scans its first columns into pre, the rest into Scan's
// destinations.
type prefixedRow struct {
	rows pgx.Rows
	pre  []any
}

func (p prefixedRow) Scan(dest ...any) error {
	all := make([]any, 0, len(p.pre)+len(dest))
	return p.rows.Scan(append(append(all, p.pre...), dest...)...)
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
