package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"bidradar/pkg/testutil/pgtest"
	"bidradar/services/market/benchkit"
	"bidradar/services/market/internal/adapters/postgres"
	"bidradar/services/market/internal/domain"
	"bidradar/services/market/marketsvc"
)

func newStore(t *testing.T) (*postgres.Store, *pgxpool.Pool) {
	t.Helper()
	pool, err := marketsvc.Open(context.Background(), pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return postgres.New(pool), pool
}

func money(v int64) *int64 { return &v }

func taxID(n int) string {
	d := fmt.Sprintf("%012d", 10556000000+n)
	return d + string(domain.CheckDigit(d))
}

func award(id string, ref, agreed int64, winners ...domain.Winner) domain.Award {
	a := domain.Award{ProjectID: id, ProjectName: "จ้างก่อสร้างถนน " + id, DeptCode: "0701", DeptName: "กรมชลประทาน",
		MethodCode: "16", TypeCode: "02", BudgetYear: 2568, Winners: winners}
	if ref > 0 {
		a.Reference = money(ref)
	}
	if agreed > 0 {
		a.Agreed = money(agreed)
	}
	return a
}

func pending(t *testing.T, pool *pgxpool.Pool) (n int) {
	t.Helper()
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM competitor_alerts`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestAwardsReplayAndAlertsOnce: an award applied twice changes nothing;
// a watcher is told once per (project, tax id); a changed price of the same
// winner tells nothing; a damaged id never alerts nor becomes identity.
func TestAwardsReplayAndAlertsOnce(t *testing.T) {
	t.Parallel()
	s, pool := newStore(t)
	ctx := context.Background()
	now := time.Now()
	watched := taxID(7)
	if _, full, err := s.AddWatch(ctx, "u1", watched, 20, now); err != nil || full {
		t.Fatal(full, err)
	}
	w := domain.NewWinner("บริษัท คู่แข่ง จำกัด", watched, false, "", nil)
	a := award("68010000001", 100_000_00, 90_000_00, w)
	for i, want := range []bool{true, false} {
		changed, err := s.ApplyAward(ctx, a, now)
		if err != nil || changed != want {
			t.Fatalf("apply %d: changed %v, want %v (%v)", i, changed, want, err)
		}
	}
	if n := pending(t, pool); n != 1 {
		t.Fatalf("alerts %d, want 1", n)
	}
	a.Agreed = money(95_000_00) // corrected price, same winner
	if changed, err := s.ApplyAward(ctx, a, now); err != nil || !changed {
		t.Fatal(changed, err)
	}
	sent, err := s.FlushAlerts(ctx, 50, now)
	if err != nil || sent != 1 || pending(t, pool) != 1 {
		t.Fatalf("flush: %d %v", sent, err)
	}
	if sent, _ := s.FlushAlerts(ctx, 50, now); sent != 0 {
		t.Fatalf("flushed again: %d", sent)
	}
	damaged := domain.NewWinner("บริษัท ตัวอย่าง จำกัด", "1.05559E+11", false, "", nil)
	if _, err := s.ApplyAward(ctx, award("68010000002", 100_00, 90_00, damaged), now); err != nil {
		t.Fatal(err)
	}
	if err := s.RefreshRollups(ctx); err != nil {
		t.Fatal(err)
	}
	hits, err := s.SearchSuppliers(ctx, domain.NameKey("ตัวอย่าง"), "", 10)
	if err != nil || len(hits) != 1 || hits[0].TaxID != "" {
		t.Fatalf("damaged winner: %+v %v", hits, err)
	}
	var published string
	if err := pool.QueryRow(ctx, `SELECT tax_id_published FROM award_winners WHERE project_id = '68010000002'`).Scan(&published); err != nil || published != "1.05559E+11" {
		t.Fatalf("kept as published: %q %v", published, err)
	}
}

// TestFiguresEqualTheOracle: random awards (negative discounts, missing
// prices, damaged ids); every figure of several groups, from the awards and
// from the rollups, equals the definitions computed in Go over the same rows.
// bench/market runs the same check at 1 M awards.
func TestFiguresEqualTheOracle(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(1, 2))
	var all []domain.Award
	for i := 0; i < 400; i++ {
		ref := int64(r.IntN(5_000_000)+10_000) * 100
		agreed := ref * int64(70+r.IntN(40)) / 100 // 70 % to 109 %: some above the reference
		if r.IntN(10) == 0 {
			ref = 0
		}
		var w domain.Winner
		if r.IntN(8) == 0 {
			w = domain.NewWinner(fmt.Sprintf("ร้าน เสียหาย %d", r.IntN(3)), "1.05559E+11", false, "", nil)
		} else {
			k := r.IntN(15)
			w = domain.NewWinner(fmt.Sprintf("บริษัท ผู้รับเหมา %d จำกัด", k), taxID(k), false, "", nil)
		}
		a := award(fmt.Sprintf("6801%07d", i), ref, agreed, w)
		a.DeptCode = []string{"0701", "0802", "1405"}[r.IntN(3)]
		a.MethodCode = []string{"16", "19"}[r.IntN(2)]
		a.TypeCode = []string{"01", "02", "03"}[r.IntN(3)]
		a.BudgetYear = 2566 + r.IntN(3)
		if r.IntN(2) == 0 {
			a.ProjectName = "ซื้อวัสดุสำนักงาน " + a.ProjectID
		}
		if _, err := s.ApplyAward(ctx, a, time.Now()); err != nil {
			t.Fatal(err)
		}
		all = append(all, a)
	}
	groups := []struct {
		name string
		f    domain.Filter
		keep func(domain.Award) bool
	}{
		{"all", domain.Filter{}, func(domain.Award) bool { return true }},
		{"dept", domain.Filter{Depts: []string{"0701"}}, func(a domain.Award) bool { return a.DeptCode == "0701" }},
		{"method+type", domain.Filter{Methods: []string{"16"}, Types: []string{"02"}}, func(a domain.Award) bool { return a.MethodCode == "16" && a.TypeCode == "02" }},
		{"keyword+2", domain.Filter{And: []string{domain.NameKey("ถนน")}, Methods: []string{"19"}, BudgetYears: []int{2567}},
			func(a domain.Award) bool {
				return strings.Contains(a.ProjectName, "ถนน") && a.MethodCode == "19" && a.BudgetYear == 2567
			}},
		{"keyword+lists", domain.Filter{And: []string{domain.NameKey("วัสดุ")}, Depts: []string{"0701", "1405"}, BudgetYears: []int{2566, 2568}, Types: []string{"01"}},
			func(a domain.Award) bool {
				return strings.Contains(a.ProjectName, "วัสดุ") && (a.DeptCode == "0701" || a.DeptCode == "1405") &&
					(a.BudgetYear == 2566 || a.BudgetYear == 2568) && a.TypeCode == "01"
			}},
	}
	check := func(phase string) {
		for _, g := range groups {
			got, err := s.Benchmark(ctx, g.f)
			if err != nil {
				t.Fatal(err)
			}
			var rows []domain.Award
			for _, a := range all {
				if g.keep(a) {
					rows = append(rows, a)
				}
			}
			if diff := benchkit.Oracle(rows).Diff(got); diff != "" {
				t.Errorf("%s %s: %s", phase, g.name, diff)
			}
			var ds []float64
			for _, a := range rows {
				if d, ok := a.Discount(); ok {
					ds = append(ds, d)
				}
			}
			sort.Float64s(ds)
			for _, d := range []float64{-5, 0, 7.5, 12.345, 29.99} {
				rank, err := s.PercentRank(ctx, g.f, d)
				if err != nil || rank != domain.PercentRank(ds, d) {
					t.Errorf("%s %s: rank of %v = %v, want %v (%v)", phase, g.name, d, rank, domain.PercentRank(ds, d), err)
				}
			}
		}
	}
	check("live")
	for i := 0; i < 20; i++ {
		if err := s.RefreshRollups(ctx); err != nil {
			t.Fatal(err)
		}
	}
	check("rollups")
}

// rollupsOf reads every rollup: its body and sorted discounts as text.
func rollupsOf(t *testing.T, pool *pgxpool.Pool) map[string]string {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT dims || '/' || key, body::text || ' ' || coalesce(discounts::text, 'null')
		FROM rollups`)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			t.Fatal(err)
		}
		out[k] = v
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func dirtyCount(t *testing.T, pool *pgxpool.Pool) (n int) {
	t.Helper()
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM rollup_dirty`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestSetRefreshEqualsPerGroup: the set-based refresh (one GROUP BY pass
// per dimension, for bulk loads) writes exactly the rollups the per-group
// refresh writes: bodies (percentiles, mean, histogram, years, top winners
// with their medians) and sorted discounts; a group left without awards
// loses its rollup in both.
func TestSetRefreshEqualsPerGroup(t *testing.T) {
	t.Parallel()
	s, pool := newStore(t)
	ctx := context.Background()
	awards := benchkit.Generate(7, 1500)
	for i := range awards {
		a := &awards[i]
		a.DeptCode = fmt.Sprint(1000 + i%12) // 12 agencies, so each holds many awards
		a.DeptName = "หน่วยงาน " + a.DeptCode
		if i%50 == 0 {
			a.Winners = append(a.Winners, domain.NewWinner("บริษัท ร่วมค้า จำกัด", taxID(i%3), false, "", nil))
		}
		if i%97 == 0 {
			a.Agreed = nil // no agreed price: counted in n_without_reference
		}
	}
	moved := awards[0]
	moved.DeptCode = "9999" // alone in its agency, then moved back: the group empties
	for _, a := range append(awards, moved) {
		if _, err := s.ApplyAward(ctx, a, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.RefreshEach(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ApplyAward(ctx, awards[0], time.Now()); err != nil { // back from 9999
		t.Fatal(err)
	}
	markAll := func() {
		if _, err := pool.Exec(ctx, `INSERT INTO rollup_dirty (dims, key) SELECT DISTINCT d.dims, d.key FROM awards a, LATERAL (VALUES
			('', ''), ('d', a.dept_code), ('m', a.method_code), ('t', a.type_code),
			('mt', a.method_code || E'\x1f' || a.type_code)) d(dims, key) ON CONFLICT DO NOTHING`); err != nil {
			t.Fatal(err)
		}
	}
	markAll()
	if err := s.RefreshEach(ctx); err != nil {
		t.Fatal(err)
	}
	each := rollupsOf(t, pool)
	if _, ok := each["d/9999"]; ok {
		t.Fatal("per group: the emptied agency kept its rollup")
	}
	// Again set-based, with the emptied group stale too.
	if _, err := pool.Exec(ctx, `UPDATE rollups SET body = '{}'`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO rollups (dims, key, body) VALUES ('d', '9999', '{}')`); err != nil {
		t.Fatal(err)
	}
	markAll()
	if _, err := pool.Exec(ctx, `INSERT INTO rollup_dirty (dims, key) VALUES ('d', '9999')`); err != nil {
		t.Fatal(err)
	}
	for _, dims := range postgres.RollupDims {
		if err := s.RefreshSet(ctx, dims); err != nil {
			t.Fatal(dims, err)
		}
	}
	if n := dirtyCount(t, pool); n != 0 {
		t.Fatalf("%d groups left stale", n)
	}
	set := rollupsOf(t, pool)
	if len(each) < 1+12+6+6 || len(set) != len(each) {
		t.Fatalf("%d rollups set-based, %d per group", len(set), len(each))
	}
	for k, want := range each {
		if set[k] != want {
			t.Errorf("%s:\n set  %s\n each %s", k, set[k], want)
		}
	}
	// And the refresh job takes the set-based path for a bulk of stale groups.
	markAll()
	if err := s.RefreshRollups(ctx); err != nil {
		t.Fatal(err)
	}
	if n := dirtyCount(t, pool); n != 0 {
		t.Fatalf("refresh job: %d groups left stale", n)
	}
	if got := rollupsOf(t, pool); fmt.Sprint(got) != fmt.Sprint(each) {
		t.Error("the refresh job's rollups differ from the per-group ones")
	}
}
