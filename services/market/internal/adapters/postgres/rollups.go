package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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

// RefreshRollups implements domain.Store: the stale suppliers, then the
// stale groups (a batch each call; the job calls again).
func (s *Store) RefreshRollups(ctx context.Context) error {
	if _, err := s.pool.Exec(ctx, refreshSuppliersSQL); err != nil {
		return fmt.Errorf("refresh suppliers: %w", err)
	}
	if err := s.refreshProfiles(ctx); err != nil {
		return fmt.Errorf("refresh profiles: %w", err)
	}
	rows, err := s.pool.Query(ctx, `SELECT dims, key, version FROM rollup_dirty ORDER BY length(dims) DESC LIMIT 200`)
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
