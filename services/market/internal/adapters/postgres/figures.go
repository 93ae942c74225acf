package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"bidradar/services/market/internal/domain"
)

// benchmarkSQL computes a benchmark over the awards the WHERE clause %s
// selects (docs/market.md#definitions): percentile_cont for the
// percentiles, avg for the mean, both rounded as numeric to 2 decimals; the
// top winners from the winners kept on the award's row (migrations/00005).
const benchmarkSQL = `WITH m AS MATERIALIZED (
	SELECT a.project_id, a.discount_pct AS d, a.budget_year, a.agreed_satang, a.winner_keys, a.winner_tax_ids, a.winner_names
	FROM awards a WHERE %s
), s AS (
	SELECT count(d) AS n, count(*) - count(d) AS nw,
		percentile_cont(ARRAY[0.1, 0.25, 0.5, 0.75, 0.9]) WITHIN GROUP (ORDER BY d) AS p, avg(d) AS mean
	FROM m
)
SELECT s.n, s.nw,
	(SELECT array_agg(round(v::numeric, 2)::float8 ORDER BY o) FROM unnest(s.p) WITH ORDINALITY u(v, o)),
	round(s.mean::numeric, 2)::float8,
	(SELECT coalesce(json_agg(json_build_array(b, lo, c) ORDER BY b), '[]') FROM (
		SELECT CASE WHEN d < 0 THEN -1 ELSE least(floor(d / 5)::int, 19) END AS b, floor(min(d)) AS lo, count(*) AS c
		FROM m WHERE d IS NOT NULL GROUP BY 1) h),
	(SELECT coalesce(json_agg(json_build_array(budget_year, n, p50) ORDER BY budget_year), '[]') FROM (
		SELECT budget_year, count(d) AS n,
			round((percentile_cont(0.5) WITHIN GROUP (ORDER BY d))::numeric, 2)::float8 AS p50
		FROM m GROUP BY budget_year) y),
	(SELECT coalesce(json_agg(json_build_array(tax_id, name, wins, total, p50) ORDER BY wins DESC, total DESC, name), '[]') FROM (
		SELECT max(nullif(w.tax_id, '')) AS tax_id, mode() WITHIN GROUP (ORDER BY w.name) AS name, count(*) AS wins,
			coalesce(sum(m.agreed_satang), 0) AS total,
			round((percentile_cont(0.5) WITHIN GROUP (ORDER BY m.d))::numeric, 2)::float8 AS p50
		FROM m, unnest(m.winner_keys, m.winner_tax_ids, m.winner_names) AS w(winner_key, tax_id, name) GROUP BY w.winner_key
		ORDER BY wins DESC, total DESC, name LIMIT 10) t)
FROM s`

func f64(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case json.Number:
		f, _ := x.Float64()
		return f
	}
	return 0
}

func optF64(v any) *float64 {
	if v == nil {
		return nil
	}
	f := f64(v)
	return &f
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func decodeRows(b []byte) ([][]any, error) {
	var rows [][]any
	if err := json.Unmarshal(b, &rows); err != nil {
		return nil, fmt.Errorf("decode figures: %w", err)
	}
	return rows, nil
}

func winners(b []byte) ([]domain.WinnerStat, error) {
	rows, err := decodeRows(b)
	if err != nil {
		return nil, err
	}
	out := make([]domain.WinnerStat, len(rows))
	for i, r := range rows {
		out[i] = domain.WinnerStat{TaxID: str(r[0]), Name: str(r[1]), Wins: int64(f64(r[2])), Total: int64(f64(r[3])), P50: optF64(r[4])}
	}
	return out, nil
}

// liveBenchmark computes f's benchmark from the awards.
func (s *Store) liveBenchmark(ctx context.Context, q pgx.Tx, f domain.Filter) (domain.Benchmark, error) {
	var qb query
	sql := fmt.Sprintf(benchmarkSQL, qb.where(f))
	var b domain.Benchmark
	var ps []*float64
	var hist, years, tops []byte
	var row pgx.Row
	if q != nil {
		row = q.QueryRow(ctx, sql, qb.args...)
	} else {
		row = s.rd(ctx).QueryRow(ctx, sql, qb.args...)
	}
	if err := row.Scan(&b.N, &b.NWithoutReference, &ps, &b.Stats.Mean, &hist, &years, &tops); err != nil {
		return b, fmt.Errorf("benchmark: %w", err)
	}
	return decodeBenchmark(b, ps, hist, years, tops)
}

// decodeBenchmark fills b from the columns benchmarkSQL (and the set-based
// refresh, rollupSetSQL) return: the percentiles and the JSON arrays of the
// histogram, the budget years and the top winners.
func decodeBenchmark(b domain.Benchmark, ps []*float64, hist, years, tops []byte) (domain.Benchmark, error) {
	if len(ps) == 5 {
		b.Stats.P10, b.Stats.P25, b.Stats.P50, b.Stats.P75, b.Stats.P90 = ps[0], ps[1], ps[2], ps[3], ps[4]
	}
	rows, err := decodeRows(hist)
	if err != nil {
		return b, err
	}
	for _, r := range rows {
		bin, lo, c := int(f64(r[0])), f64(r[1]), int64(f64(r[2]))
		if bin < 0 {
			b.Histogram = append(b.Histogram, domain.Bin{From: lo, To: 0, Count: c})
			continue
		}
		b.Histogram = append(b.Histogram, domain.Bin{From: float64(bin * domain.HistogramBinWidth),
			To: float64((bin + 1) * domain.HistogramBinWidth), Count: c})
	}
	if rows, err = decodeRows(years); err != nil {
		return b, err
	}
	for _, r := range rows {
		b.ByYear = append(b.ByYear, domain.YearStat{Year: int(f64(r[0])), N: int64(f64(r[1])), P50: optF64(r[2])})
	}
	b.TopWinners, err = winners(tops)
	return b, err
}

// Benchmark implements domain.Store: a group a rollup holds fresh is read
// from it, any other filter is computed from the awards.
func (s *Store) Benchmark(ctx context.Context, f domain.Filter) (domain.Benchmark, error) {
	if dims, key, ok := rollupOf(f); ok {
		r, found, err := s.rollup(ctx, dims, key, false)
		if err != nil {
			return domain.Benchmark{}, err
		}
		if found {
			return r.body, nil
		}
	}
	return s.liveBenchmark(ctx, nil, f)
}

// GroupSizes implements domain.Store.
func (s *Store) GroupSizes(ctx context.Context, gs []domain.Group) ([]int64, error) {
	out := make([]int64, len(gs))
	for i, g := range gs {
		f := g.Filter()
		if dims, key, ok := rollupOf(f); ok {
			r, found, err := s.rollup(ctx, dims, key, false)
			if err != nil {
				return nil, err
			}
			if found {
				out[i] = r.body.N
				continue
			}
		}
		var qb query
		w := qb.where(f)
		if err := s.rd(ctx).QueryRow(ctx, `SELECT count(a.discount_pct) FROM awards a WHERE `+w, qb.args...).Scan(&out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// PercentRank implements domain.Store: percent_rank(d) WITHIN GROUP
// (ORDER BY discount) over the group, or, from a fresh rollup, the same
// share (count below d ÷ n) over the group's sorted discounts.
func (s *Store) PercentRank(ctx context.Context, f domain.Filter, d float64) (float64, error) {
	if dims, key, ok := rollupOf(f); ok {
		r, found, err := s.rollup(ctx, dims, key, true)
		if err != nil {
			return 0, err
		}
		if found {
			return domain.PercentRank(r.discounts, d), nil
		}
	}
	var qb query
	w := qb.where(f)
	var rank float64
	err := s.rd(ctx).QueryRow(ctx, `SELECT coalesce(percent_rank(`+qb.arg(d)+`::float8) WITHIN GROUP (ORDER BY a.discount_pct), 0)
		FROM awards a WHERE a.discount_pct IS NOT NULL AND `+w, qb.args...).Scan(&rank)
	return rank, err
}

// SearchSuppliers implements domain.Store.
func (s *Store) SearchSuppliers(ctx context.Context, nameKey, taxID string, limit int) ([]domain.SupplierHit, error) {
	var rows pgx.Rows
	var err error
	if taxID != "" {
		rows, err = s.rd(ctx).Query(ctx, `SELECT coalesce(tax_id, ''), name, wins, total_satang FROM suppliers
			WHERE winner_key = 'T' || $1`, taxID)
	} else {
		rows, err = s.rd(ctx).Query(ctx, `SELECT coalesce(tax_id, ''), name, wins, total_satang FROM suppliers
			WHERE name_key LIKE '%' || $1 || '%' ORDER BY wins DESC, total_satang DESC, name LIMIT $2`,
			escapeLike(nameKey), limit)
	}
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (domain.SupplierHit, error) {
		var h domain.SupplierHit
		err := r.Scan(&h.TaxID, &h.Name, &h.Wins, &h.Total)
		return h, err
	})
}

const supplierSQL = `WITH m AS MATERIALIZED (
	SELECT a.project_id, a.project_name, a.dept_code, a.dept_name, a.budget_year, a.agreed_satang, a.reference_satang,
		a.discount_pct AS d, a.announce_date, w.name AS wname
	FROM award_winners w JOIN awards a USING (project_id) WHERE w.tax_id = $1
)
SELECT count(*), coalesce(sum(agreed_satang), 0),
	round((percentile_cont(0.5) WITHIN GROUP (ORDER BY d))::numeric, 2)::float8,
	(SELECT coalesce(json_agg(wname ORDER BY c DESC, wname), '[]') FROM (SELECT wname, count(*) c FROM m GROUP BY wname) n),
	(SELECT coalesce(json_agg(json_build_array(budget_year, wins, total, p50) ORDER BY budget_year), '[]') FROM (
		SELECT budget_year, count(*) wins, coalesce(sum(agreed_satang), 0) total,
			round((percentile_cont(0.5) WITHIN GROUP (ORDER BY d))::numeric, 2)::float8 p50 FROM m GROUP BY budget_year) y),
	(SELECT coalesce(json_agg(json_build_array(dept_code, name, wins, total) ORDER BY wins DESC, total DESC, name), '[]') FROM (
		SELECT dept_code, mode() WITHIN GROUP (ORDER BY dept_name) name, count(*) wins, coalesce(sum(agreed_satang), 0) total
		FROM m GROUP BY dept_code ORDER BY wins DESC, total DESC, name LIMIT 20) g),
	(SELECT coalesce(json_agg(json_build_array(project_id, project_name, agreed_satang, reference_satang, d, announce_date, dept_name)
		ORDER BY announce_date DESC NULLS LAST, project_id DESC), '[]') FROM (
		SELECT * FROM m ORDER BY announce_date DESC NULLS LAST, project_id DESC LIMIT 20) r)
FROM m`

func optSatang(v any) *int64 {
	if v == nil {
		return nil
	}
	n := int64(f64(v))
	return &n
}

// Supplier implements domain.Store: a busy supplier's kept profile when
// fresh, else computed from the awards.
func (s *Store) Supplier(ctx context.Context, taxID string) (domain.Supplier, bool, error) {
	if p, ok, err := s.keptProfile(ctx, taxID); err != nil || ok {
		return p, ok, err
	}
	return s.liveSupplier(ctx, taxID)
}

func (s *Store) liveSupplier(ctx context.Context, taxID string) (domain.Supplier, bool, error) {
	out := domain.Supplier{TaxID: taxID}
	var names, years, agencies, recent []byte
	if err := s.rd(ctx).QueryRow(ctx, supplierSQL, taxID).Scan(&out.Wins, &out.Total, &out.P50, &names, &years, &agencies, &recent); err != nil {
		return out, false, fmt.Errorf("supplier: %w", err)
	}
	if out.Wins == 0 {
		return out, false, nil
	}
	if err := json.Unmarshal(names, &out.Names); err != nil {
		return out, false, err
	}
	rows, err := decodeRows(years)
	if err != nil {
		return out, false, err
	}
	for _, r := range rows {
		out.ByYear = append(out.ByYear, domain.SupplierYear{Year: int(f64(r[0])), Wins: int64(f64(r[1])), Total: int64(f64(r[2])), P50: optF64(r[3])})
	}
	if rows, err = decodeRows(agencies); err != nil {
		return out, false, err
	}
	for _, r := range rows {
		out.Agencies = append(out.Agencies, domain.AgencyStat{Code: str(r[0]), Name: str(r[1]), Wins: int64(f64(r[2])), Total: int64(f64(r[3]))})
	}
	if rows, err = decodeRows(recent); err != nil {
		return out, false, err
	}
	for _, r := range rows {
		w := domain.RecentWin{ProjectID: str(r[0]), ProjectName: str(r[1]), Agreed: optSatang(r[2]), Reference: optSatang(r[3]),
			DeptName: str(r[6])}
		if d := optF64(r[4]); d != nil {
			v := domain.Round2(*d)
			w.Discount = &v
		}
		if t, err := time.Parse(time.DateOnly, str(r[5])); err == nil {
			w.Date = &t
		}
		out.Recent = append(out.Recent, w)
	}
	return out, true, nil
}

const agencySQL = `WITH m AS MATERIALIZED (
	SELECT a.project_id, a.dept_code, a.dept_name, a.dept_sub_name, a.method_code, a.method_name, a.budget_year,
		a.agreed_satang, a.discount_pct AS d
	FROM awards a WHERE %s = $1
), tot AS (SELECT count(*) AS projects FROM m)
SELECT (SELECT projects FROM tot), coalesce(sum(agreed_satang), 0), count(d), count(*) - count(d),
	round((percentile_cont(0.5) WITHIN GROUP (ORDER BY d))::numeric, 2)::float8,
	mode() WITHIN GROUP (ORDER BY dept_code), mode() WITHIN GROUP (ORDER BY dept_name), mode() WITHIN GROUP (ORDER BY dept_sub_name),
	(SELECT coalesce(json_agg(json_build_array(budget_year, projects, total, p50) ORDER BY budget_year), '[]') FROM (
		SELECT budget_year, count(*) projects, coalesce(sum(agreed_satang), 0) total,
			round((percentile_cont(0.5) WITHIN GROUP (ORDER BY d))::numeric, 2)::float8 p50 FROM m GROUP BY budget_year) y),
	(SELECT coalesce(json_agg(json_build_array(method_code, name, projects, total, share) ORDER BY projects DESC, method_code), '[]') FROM (
		SELECT method_code, mode() WITHIN GROUP (ORDER BY method_name) name, count(*) projects, coalesce(sum(agreed_satang), 0) total,
			round(100.0 * count(*) / (SELECT projects FROM tot), 2)::float8 share FROM m GROUP BY method_code) g),
	(SELECT coalesce(json_agg(json_build_array(tax_id, name, wins, total, p50) ORDER BY wins DESC, total DESC, name), '[]') FROM (
		SELECT max(w.tax_id) AS tax_id, mode() WITHIN GROUP (ORDER BY w.name) AS name, count(*) AS wins,
			coalesce(sum(m.agreed_satang), 0) AS total,
			round((percentile_cont(0.5) WITHIN GROUP (ORDER BY m.d))::numeric, 2)::float8 AS p50
		FROM m JOIN award_winners w USING (project_id) GROUP BY w.winner_key
		ORDER BY wins DESC, total DESC, name LIMIT 10) t)
FROM m`

// Agency implements domain.Store: code is an agency's, else a sub-agency's.
func (s *Store) Agency(ctx context.Context, code string) (domain.Agency, bool, error) {
	for _, level := range []struct{ col, name string }{{"a.dept_code", "agency"}, {"a.dept_sub_code", "sub_agency"}} {
		out := domain.Agency{Code: code, Level: level.name}
		var parentCode, deptName, subName *string
		var years, methods, tops []byte
		err := s.rd(ctx).QueryRow(ctx, fmt.Sprintf(agencySQL, level.col), code).Scan(&out.Projects, &out.Total, &out.N,
			&out.NWithoutReference, &out.P50, &parentCode, &deptName, &subName, &years, &methods, &tops)
		if err != nil {
			return out, false, fmt.Errorf("agency: %w", err)
		}
		if out.Projects == 0 {
			continue
		}
		if level.name == "agency" {
			out.Name = deref(deptName)
		} else {
			out.Name, out.ParentCode, out.ParentName = deref(subName), deref(parentCode), deref(deptName)
		}
		rows, err := decodeRows(years)
		if err != nil {
			return out, false, err
		}
		for _, r := range rows {
			out.ByYear = append(out.ByYear, domain.AgencyYear{Year: int(f64(r[0])), Projects: int64(f64(r[1])), Total: int64(f64(r[2])), P50: optF64(r[3])})
		}
		if rows, err = decodeRows(methods); err != nil {
			return out, false, err
		}
		for _, r := range rows {
			out.Methods = append(out.Methods, domain.MethodShare{Code: str(r[0]), Name: str(r[1]), Projects: int64(f64(r[2])),
				Total: int64(f64(r[3])), SharePct: f64(r[4])})
		}
		if out.TopSuppliers, err = winners(tops); err != nil {
			return out, false, err
		}
		return out, true, nil
	}
	return domain.Agency{}, false, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func escapeLike(s string) string {
	out := make([]rune, 0, len(s))
	for _, r := range s {
		if r == '%' || r == '_' || r == '\\' {
			out = append(out, '\\')
		}
		out = append(out, r)
	}
	return string(out)
}
