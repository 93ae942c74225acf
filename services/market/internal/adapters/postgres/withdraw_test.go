package postgres_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"bidradar/services/market/benchkit"
	"bidradar/services/market/internal/domain"
)

// TestWithdrawnAwardLeavesEveryFigure: a withdrawn award (a cancelled
// winner announcement) leaves the benchmark, the fresh rollups, the price
// guide's group and its winner's profile; its unsent alert goes; a replayed
// withdrawal changes nothing; a re-award brings it back
// (docs/market.md#withdrawn-awards).
func TestWithdrawnAwardLeavesEveryFigure(t *testing.T) {
	t.Parallel()
	s, pool := newStore(t)
	ctx := context.Background()
	now := time.Now()
	watched := taxID(3)
	if _, full, err := s.AddWatch(ctx, "u1", watched, 20, now); err != nil || full {
		t.Fatal(full, err)
	}
	var all []domain.Award
	for i := 0; i < 24; i++ {
		w := domain.NewWinner(fmt.Sprintf("บริษัท ผู้รับเหมา %d จำกัด", i%4), taxID(i%4), false, "", nil)
		a := award(fmt.Sprintf("6802%07d", i), 100_000_00, int64(80_000_00+i*500_00), w)
		if _, err := s.ApplyAward(ctx, a, now); err != nil {
			t.Fatal(err)
		}
		all = append(all, a)
	}
	refresh := func() {
		t.Helper()
		for range 3 {
			if err := s.RefreshRollups(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	refresh()
	if _, err := s.FlushAlerts(ctx, 50, now); err != nil {
		t.Fatal(err)
	}
	// The award withdrawn: project 3, won by the watched tax id, whose
	// corrected award is still pending as an alert.
	gone := all[3]
	if gone.Winners[0].TaxID != watched {
		t.Fatal("fixture: project 3 is not the watched winner's")
	}
	if _, err := pool.Exec(ctx, `UPDATE competitor_alerts SET sent_at = NULL WHERE project_id = $1`, gone.ProjectID); err != nil {
		t.Fatal(err)
	}
	rest := append(append([]domain.Award(nil), all[:3]...), all[4:]...)
	group := domain.Group{Basis: "agency_method_category", DeptCode: "0701", MethodCode: "16", TypeCode: "02"}
	check := func(phase string, rows []domain.Award, wins int64) {
		t.Helper()
		for _, f := range []domain.Filter{{}, group.Filter(), {Depts: []string{"0701"}}, {And: []string{domain.NameKey("ถนน")}}} {
			got, err := s.Benchmark(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			if diff := benchkit.Oracle(rows).Diff(got); diff != "" {
				t.Fatalf("%s %+v: %s", phase, f, diff)
			}
		}
		sizes, err := s.GroupSizes(ctx, []domain.Group{group})
		if err != nil || sizes[0] != int64(len(rows)) {
			t.Fatalf("%s: group size %v, want %d (%v)", phase, sizes, len(rows), err)
		}
		sup, ok, err := s.Supplier(ctx, watched)
		if err != nil || !ok || sup.Wins != wins {
			t.Fatalf("%s: supplier wins %d, want %d (%v %v)", phase, sup.Wins, wins, ok, err)
		}
		for _, r := range sup.Recent {
			if r.ProjectID == gone.ProjectID && len(rows) < len(all) {
				t.Fatalf("%s: the withdrawn award is among the supplier's recent wins", phase)
			}
		}
	}
	check("before", all, 6)
	for i, want := range []bool{true, false} { // the second is a replay
		changed, err := s.WithdrawAward(ctx, gone.ProjectID, time.Time{})
		if err != nil || changed != want {
			t.Fatalf("withdraw %d: changed %v, want %v (%v)", i, changed, want, err)
		}
	}
	if n := pending(t, pool); n != 5 {
		t.Fatalf("alerts kept %d, want the 5 of the winner's other projects (sent)", n)
	}
	var unsent int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM competitor_alerts WHERE project_id = $1`, gone.ProjectID).Scan(&unsent); err != nil || unsent != 0 {
		t.Fatalf("the withdrawn award's unsent alert stays: %d %v", unsent, err)
	}
	check("withdrawn, stale rollups", rest, 5)
	refresh()
	check("withdrawn, fresh rollups", rest, 5)
	// A later W0 re-awards: the projects service publishes the award again.
	if changed, err := s.ApplyAward(ctx, gone, now); err != nil || !changed {
		t.Fatalf("re-award: %v %v", changed, err)
	}
	refresh()
	check("re-awarded", all, 6)
}

// TestLateAwardEventIgnored: events are applied in the order they were
// published, not delivered: an AwardRecorded retried after the withdrawal
// that followed it does not bring the award back, an older state of an
// award does not overwrite a newer one, and a later award (a new W0) does
// (docs/market.md#withdrawn-awards).
func TestLateAwardEventIgnored(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	ctx := context.Background()
	now := time.Now()
	t0 := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	w := domain.NewWinner("บริษัท ผู้รับเหมา จำกัด", taxID(1), false, "", nil)
	first := award("68020000001", 100_000_00, 90_000_00, w)
	first.EventAt = t0
	corrected := award("68020000001", 100_000_00, 85_000_00, w)
	corrected.EventAt = t0.Add(time.Hour)
	n := func() int64 {
		t.Helper()
		b, err := s.Benchmark(ctx, domain.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		return b.N
	}
	p50 := func() float64 {
		t.Helper()
		b, err := s.Benchmark(ctx, domain.Filter{})
		if err != nil || b.Stats.P50 == nil {
			t.Fatalf("p50: %+v %v", b.Stats, err)
		}
		return *b.Stats.P50
	}
	if changed, err := s.ApplyAward(ctx, corrected, now); err != nil || !changed {
		t.Fatalf("corrected: %v %v", changed, err)
	}
	// The first state, delivered after the correction: ignored.
	if changed, err := s.ApplyAward(ctx, first, now); err != nil || changed {
		t.Fatalf("older state applied: %v %v", changed, err)
	}
	if got := p50(); got != 15 {
		t.Fatalf("discount %v, want the corrected 15", got)
	}
	withdrawnAt := t0.Add(2 * time.Hour)
	if changed, err := s.WithdrawAward(ctx, first.ProjectID, withdrawnAt); err != nil || !changed {
		t.Fatalf("withdraw: %v %v", changed, err)
	}
	// The correction redelivered after the withdrawal: still withdrawn.
	if changed, err := s.ApplyAward(ctx, corrected, now); err != nil || changed || n() != 0 {
		t.Fatalf("a late award event brought the withdrawn award back: %v %v n=%d", changed, err, n())
	}
	// An older withdrawal redelivered after a re-award: the award stays.
	reawarded := corrected
	reawarded.EventAt = t0.Add(3 * time.Hour)
	if changed, err := s.ApplyAward(ctx, reawarded, now); err != nil || !changed || n() != 1 {
		t.Fatalf("re-award: %v %v n=%d", changed, err, n())
	}
	if changed, err := s.WithdrawAward(ctx, first.ProjectID, withdrawnAt); err != nil || changed || n() != 1 {
		t.Fatalf("a late withdrawal removed the re-award: %v %v n=%d", changed, err, n())
	}
}
