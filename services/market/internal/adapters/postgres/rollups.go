package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"bidradar/services/market/internal/domain"
)

// rollupDims are the groups kept as rollups: "" is every award; d agency,
// m method, t category, mt method and category: the large groups a request
// names alone or a price guide falls back to. Smaller groups (an agency with
// a method and a category) are read through their index fast enough.
var rollupDims = []string{"", "d", "m", "t", "mt"}

func rollupKey(dims, dept, method, typ string) string {
	var parts []string
	if strings.Contains(dims, "d") {
		parts = append(parts, dept)
	}
	if strings.Contains(dims, "m") {
		parts = append(parts, method)
	}
	if strings.Contains(dims, "t") {
		parts = append(parts, typ)
	}
	return strings.Join(parts, "\x1f")
}

// rollupOf names the rollup that holds f's benchmark: f selects by at most
// one agency, one method and one category and nothing else.
func rollupOf(f domain.Filter) (dims, key string, ok bool) {
	if len(f.Or)+len(f.And)+len(f.Not)+len(f.SubDepts)+len(f.Ministries)+len(f.Provinces)+len(f.BudgetYears) > 0 ||
		f.From != nil || f.To != nil || f.MinBudget != nil || f.MaxBud != nil ||
		len(f.Depts) > 1 || len(f.Methods) > 1 || len(f.Types) > 1 {
		return "", "", false
	}
	var dept, method, typ string
	if len(f.Depts) == 1 {
		dims, dept = dims+"d", f.Depts[0]
	}
	if len(f.Methods) == 1 {
		dims, method = dims+"m", f.Methods[0]
	}
	if len(f.Types) == 1 {
		dims, typ = dims+"t", f.Types[0]
	}
	for _, d := range rollupDims {
		if d == dims {
			return dims, rollupKey(dims, dept, method, typ), true
		}
	}
	return "", "", false
}

func filterOf(dims, key string) domain.Filter {
	var f domain.Filter
	parts := strings.Split(key, "\x1f")
	i := 0
	next := func() string {
		if i >= len(parts) {
			return ""
		}
		i++
		return parts[i-1]
	}
	if strings.Contains(dims, "d") {
		f.Depts = []string{next()}
	}
	if strings.Contains(dims, "m") {
		f.Methods = []string{next()}
	}
	if strings.Contains(dims, "t") {
		f.Types = []string{next()}
	}
	return f
}

// markGroupsDirty marks the rollups of an award's groups stale (those of its
// old codes too, read before the write).
func markGroupsDirty(ctx context.Context, tx pgx.Tx, old *[3]string, a domain.Award) error {
	var dims, keys []string
	add := func(d, m, t string) {
		for _, ds := range rollupDims {
			dims, keys = append(dims, ds), append(keys, rollupKey(ds, d, m, t))
		}
	}
	add(a.DeptCode, a.MethodCode, a.TypeCode)
	if old != nil {
		add(old[0], old[1], old[2])
	}
	_, err := tx.Exec(ctx, `INSERT INTO rollup_dirty (dims, key) SELECT DISTINCT * FROM unnest($1::text[], $2::text[])
		ORDER BY 1, 2 ON CONFLICT (dims, key) DO UPDATE SET version = rollup_dirty.version + 1`, dims, keys)
	return err
}

type rollupRow struct {
	body      domain.Benchmark
	discounts []float64
}

// rollup reads a fresh rollup (found false when missing or stale).
func (s *Store) rollup(ctx context.Context, dims, key string, withDiscounts bool) (rollupRow, bool, error) {
	var r rollupRow
	var body []byte
	cols := "body, NULL::float8[]"
	if withDiscounts {
		cols = "body, discounts"
	}
	err := s.rd(ctx).QueryRow(ctx, `SELECT `+cols+` FROM rollups r WHERE r.dims = $1 AND r.key = $2
		AND NOT EXISTS (SELECT 1 FROM rollup_dirty d WHERE d.dims = $1 AND d.key = $2)`, dims, key).Scan(&body, &r.discounts)
	if errors.Is(err, pgx.ErrNoRows) {
		return r, false, nil
	}
	if err != nil {
		return r, false, err
	}
	if withDiscounts && r.discounts == nil {
		return r, false, nil
	}
	if err := json.Unmarshal(body, &r.body); err != nil {
		return r, false, err
	}
	return r, true, nil
}

// setRefreshMin is the fewest stale (method, category) groups refreshed in a
// single GROUP BY pass (refreshSet) rather than one query per group: after a
// bulk load or a big import most groups are stale, and one pass over the
// awards is far cheaper than hundreds of index scans (docs/market.md#speed).
const setRefreshMin = 8

// RefreshRollups implements domain.Store: the stale suppliers, then the
// stale groups (a batch each call; the job calls again): a dimension with
// many stale groups in one set-based pass, the others one group at a time.
func (s *Store) RefreshRollups(ctx context.Context) error {
	if _, err := s.pool.Exec(ctx, refreshSuppliersSQL); err != nil {
		return fmt.Errorf("refresh suppliers: %w", err)
	}
	if err := s.refreshProfiles(ctx); err != nil {
		return fmt.Errorf("refresh profiles: %w", err)
	}
	// A dimension of one column is always refreshed set-based: its key
	// condition (column = ANY(keys)) reads the same rows through the same
	// index as one group's, in one statement; (method, category) only for a
	// bulk, its key being an expression no index serves.
	rows, err := s.pool.Query(ctx, `SELECT dims FROM rollup_dirty GROUP BY dims
		HAVING length(dims) <= 1 OR count(*) >= $1 ORDER BY dims`, setRefreshMin)
	if err != nil {
		return err
	}
	bulk, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	for _, dims := range bulk {
		if err := s.refreshSet(ctx, dims); err != nil {
			return fmt.Errorf("refresh rollups %q: %w", dims, err)
		}
	}
	return s.refreshEach(ctx, 200)
}

// refreshEach refreshes up to limit stale groups one at a time.
func (s *Store) refreshEach(ctx context.Context, limit int) error {
	rows, err := s.pool.Query(ctx, `SELECT dims, key, version FROM rollup_dirty ORDER BY length(dims) DESC LIMIT $1`, limit)
	if err != nil {
		return err
	}
	type dirty struct {
		dims, key string
		version   int64
	}
	ds, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (dirty, error) {
		var d dirty
		err := r.Scan(&d.dims, &d.key, &d.version)
		return d, err
	})
	if err != nil {
		return err
	}
	for _, d := range ds {
		if err := s.refreshGroup(ctx, d.dims, d.key, d.version); err != nil {
			return err
		}
	}
	return nil
}

// groupKeySQL is the SQL of rollupKey over the awards aliased a.
func groupKeySQL(dims string) string {
	var parts []string
	if strings.Contains(dims, "d") {
		parts = append(parts, "a.dept_code")
	}
	if strings.Contains(dims, "m") {
		parts = append(parts, "a.method_code")
	}
	if strings.Contains(dims, "t") {
		parts = append(parts, "a.type_code")
	}
	if len(parts) == 0 {
		return "''::text"
	}
	return strings.Join(parts, " || E'\\x1f' || ")
}

// rollupSetSQL computes the benchmark of every group of one dimension whose
// key (%[1]s over the awards) is in $1, in one pass: the same figures as
// benchmarkSQL, each aggregate grouped by the key as well
// (docs/market.md#definitions), and the group's sorted discounts when %[2]s.
const rollupSetSQL = `WITH m AS MATERIALIZED (
	SELECT %[1]s AS k, a.project_id, a.discount_pct AS d, a.budget_year, a.agreed_satang FROM awards a
	WHERE %[1]s = ANY($1::text[])
), s AS (
	SELECT k, count(d) AS n, count(*) - count(d) AS nw,
		percentile_cont(ARRAY[0.1, 0.25, 0.5, 0.75, 0.9]) WITHIN GROUP (ORDER BY d) AS p, avg(d) AS mean,
		CASE WHEN %[2]s THEN coalesce(array_agg(d ORDER BY d) FILTER (WHERE d IS NOT NULL), '{}') END AS ds
	FROM m GROUP BY k
), h AS (
	SELECT k, json_agg(json_build_array(b, lo, c) ORDER BY b) AS hist FROM (
		SELECT k, CASE WHEN d < 0 THEN -1 ELSE least(floor(d / 5)::int, 19) END AS b, floor(min(d)) AS lo, count(*) AS c
		FROM m WHERE d IS NOT NULL GROUP BY 1, 2) x
	GROUP BY k
), y AS (
	SELECT k, json_agg(json_build_array(budget_year, n, p50) ORDER BY budget_year) AS years FROM (
		SELECT k, budget_year, count(d) AS n,
			round((percentile_cont(0.5) WITHIN GROUP (ORDER BY d))::numeric, 2)::float8 AS p50
		FROM m GROUP BY k, budget_year) x
	GROUP BY k
), t AS (
	SELECT k, json_agg(json_build_array(tax_id, name, wins, total, p50) ORDER BY wins DESC, total DESC, name) AS tops FROM (
		SELECT *, row_number() OVER (PARTITION BY k ORDER BY wins DESC, total DESC, name) AS r FROM (
			SELECT m.k, max(w.tax_id) AS tax_id, mode() WITHIN GROUP (ORDER BY w.name) AS name, count(*) AS wins,
				coalesce(sum(m.agreed_satang), 0) AS total,
				round((percentile_cont(0.5) WITHIN GROUP (ORDER BY m.d))::numeric, 2)::float8 AS p50
			FROM m JOIN award_winners w USING (project_id) GROUP BY m.k, w.winner_key) x) x
	WHERE r <= 10 GROUP BY k
)
SELECT s.k, s.n, s.nw,
	(SELECT array_agg(round(v::numeric, 2)::float8 ORDER BY o) FROM unnest(s.p) WITH ORDINALITY u(v, o)),
	round(s.mean::numeric, 2)::float8,
	coalesce(h.hist, '[]'), coalesce(y.years, '[]'), coalesce(t.tops, '[]'), s.ds
FROM s LEFT JOIN h USING (k) LEFT JOIN y USING (k) LEFT JOIN t USING (k)`

// refreshSet recomputes every stale group of dims in one set-based pass and
// writes them in one transaction; a group left without awards loses its
// rollup. A group made stale again meanwhile (its version moved) stays stale.
func (s *Store) refreshSet(ctx context.Context, dims string) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// The pass sorts every award of the stale groups: room to sort in memory.
		if _, err := tx.Exec(ctx, `SET LOCAL work_mem = '256MB'`); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT key, version FROM rollup_dirty WHERE dims = $1`, dims)
		if err != nil {
			return err
		}
		var keys []string
		var versions []int64
		for rows.Next() {
			var k string
			var v int64
			if err := rows.Scan(&k, &v); err != nil {
				return err
			}
			keys, versions = append(keys, k), append(versions, v)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if len(keys) == 0 {
			return nil
		}
		withDiscounts := strings.Contains(dims, "t")
		rows, err = tx.Query(ctx, fmt.Sprintf(rollupSetSQL, groupKeySQL(dims), strconv.FormatBool(withDiscounts)), keys)
		if err != nil {
			return err
		}
		var outKeys []string
		var bodies [][]byte
		var discounts [][]float64
		for rows.Next() {
			var k string
			var b domain.Benchmark
			var ps []*float64
			var hist, years, tops []byte
			var ds []float64
			if err := rows.Scan(&k, &b.N, &b.NWithoutReference, &ps, &b.Stats.Mean, &hist, &years, &tops, &ds); err != nil {
				return err
			}
			if b, err = decodeBenchmark(b, ps, hist, years, tops); err != nil {
				return err
			}
			body, err := json.Marshal(b)
			if err != nil {
				return err
			}
			outKeys, bodies, discounts = append(outKeys, k), append(bodies, body), append(discounts, ds)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		// A group without awards keeps no rollup (as refreshGroup).
		if _, err := tx.Exec(ctx, `DELETE FROM rollups WHERE dims = $1 AND key = ANY($2::text[]) AND NOT key = ANY($3::text[])`,
			dims, keys, outKeys); err != nil {
			return err
		}
		batch := &pgx.Batch{}
		for i, k := range outKeys {
			batch.Queue(`INSERT INTO rollups (dims, key, body, discounts) VALUES ($1, $2, $3, $4)
				ON CONFLICT (dims, key) DO UPDATE SET body = EXCLUDED.body, discounts = EXCLUDED.discounts`,
				dims, k, bodies[i], discounts[i])
		}
		if err := tx.SendBatch(ctx, batch).Close(); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `DELETE FROM rollup_dirty d USING unnest($2::text[], $3::int8[]) v(key, version)
			WHERE d.dims = $1 AND d.key = v.key AND d.version = v.version`, dims, keys, versions)
		return err
	})
}

func (s *Store) refreshGroup(ctx context.Context, dims, key string, version int64) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		f := filterOf(dims, key)
		b, err := s.liveBenchmark(ctx, tx, f)
		if err != nil {
			return err
		}
		var discounts []float64
		if strings.Contains(dims, "t") {
			var qb query
			w := qb.where(f)
			if err := tx.QueryRow(ctx, `SELECT coalesce(array_agg(a.discount_pct ORDER BY a.discount_pct), '{}')
				FROM awards a WHERE a.discount_pct IS NOT NULL AND `+w, qb.args...).Scan(&discounts); err != nil {
				return err
			}
		}
		body, err := json.Marshal(b)
		if err != nil {
			return err
		}
		if b.N == 0 && b.NWithoutReference == 0 {
			if _, err := tx.Exec(ctx, `DELETE FROM rollups WHERE dims = $1 AND key = $2`, dims, key); err != nil {
				return err
			}
		} else if _, err := tx.Exec(ctx, `INSERT INTO rollups (dims, key, body, discounts) VALUES ($1, $2, $3, $4)
			ON CONFLICT (dims, key) DO UPDATE SET body = EXCLUDED.body, discounts = EXCLUDED.discounts`,
			dims, key, body, discounts); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `DELETE FROM rollup_dirty WHERE dims = $1 AND key = $2 AND version = $3`, dims, key, version)
		return err
	})
}

// refreshSuppliersSQL recomputes the suppliers whose awards changed.
const refreshSuppliersSQL = `WITH d AS (
	DELETE FROM dirty_suppliers WHERE winner_key IN (SELECT winner_key FROM dirty_suppliers LIMIT 5000) RETURNING winner_key
), agg AS (
	SELECT w.winner_key, max(w.tax_id) AS tax_id, mode() WITHIN GROUP (ORDER BY w.name) AS name,
		mode() WITHIN GROUP (ORDER BY w.name_key) AS name_key, count(*) AS wins, coalesce(sum(a.agreed_satang), 0) AS total
	FROM award_winners w JOIN awards a USING (project_id)
	WHERE w.winner_key IN (SELECT winner_key FROM d) GROUP BY w.winner_key
), gone AS (
	DELETE FROM suppliers s WHERE s.winner_key IN (SELECT winner_key FROM d)
		AND s.winner_key NOT IN (SELECT winner_key FROM agg)
)
INSERT INTO suppliers (winner_key, tax_id, name, name_key, wins, total_satang)
SELECT winner_key, tax_id, name, name_key, wins, total FROM agg
ON CONFLICT (winner_key) DO UPDATE SET tax_id = EXCLUDED.tax_id, name = EXCLUDED.name, name_key = EXCLUDED.name_key,
	wins = EXCLUDED.wins, total_satang = EXCLUDED.total_satang, profile = NULL`

// ProfileMinWins is the fewest wins of a supplier whose profile is kept.
const ProfileMinWins = 200

// refreshProfiles recomputes the kept profiles the last writes made stale.
func (s *Store) refreshProfiles(ctx context.Context) error {
	rows, err := s.pool.Query(ctx, `SELECT tax_id FROM suppliers WHERE profile IS NULL AND tax_id IS NOT NULL AND wins >= $1
		ORDER BY wins DESC LIMIT 50`, ProfileMinWins)
	if err != nil {
		return err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	for _, id := range ids {
		p, ok, err := s.liveSupplier(ctx, id)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		body, err := json.Marshal(p)
		if err != nil {
			return err
		}
		if _, err := s.pool.Exec(ctx, `UPDATE suppliers SET profile = $2 WHERE winner_key = 'T' || $1`, id, body); err != nil {
			return err
		}
	}
	return nil
}

// keptProfile reads a supplier's fresh kept profile (found false when none).
func (s *Store) keptProfile(ctx context.Context, taxID string) (domain.Supplier, bool, error) {
	var body []byte
	err := s.rd(ctx).QueryRow(ctx, `SELECT profile FROM suppliers WHERE winner_key = 'T' || $1 AND profile IS NOT NULL
		AND NOT EXISTS (SELECT 1 FROM dirty_suppliers WHERE winner_key = 'T' || $1)`, taxID).Scan(&body)
	if errors.Is(err, pgx.ErrNoRows) {
		return domain.Supplier{}, false, nil
	}
	if err != nil {
		return domain.Supplier{}, false, err
	}
	var p domain.Supplier
	if err := json.Unmarshal(body, &p); err != nil {
		return p, false, err
	}
	return p, true, nil
}
