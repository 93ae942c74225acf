package postgres_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"bidradar/pkg/pgdb"
	"bidradar/pkg/testutil/eventually"
	"bidradar/pkg/testutil/pgreplica"
	"bidradar/services/market/benchkit"
	"bidradar/services/market/internal/adapters/postgres"
	"bidradar/services/market/internal/domain"
	"bidradar/services/market/marketsvc"
)

// TestFiguresSurviveAKilledReplica: the figures a user asks for read on the
// replica; killed between two checks, the replica fails the next reads on
// their connection and they run again on the primary (pgdb.Reads.Read, as
// the projects' search), so every answer still equals the oracle
// (docs/architecture.md#beyond-one-machine).
func TestFiguresSurviveAKilledReplica(t *testing.T) {
	pair := pgreplica.Start(t)
	ctx := context.Background()
	primary, err := marketsvc.Open(ctx, pair.PrimaryURL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(primary.Close)
	cfg, err := pgxpool.ParseConfig(pair.ReplicaURL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = primary.Config().ConnConfig.RuntimeParams["search_path"]
	cfg.ConnConfig.ConnectTimeout = 2 * time.Second
	replica, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := postgres.New(primary)
	var all []domain.Award
	for i := 0; i < 30; i++ {
		w := domain.NewWinner(fmt.Sprintf("บริษัท ผู้รับเหมา %d จำกัด", i%3), taxID(i%3), false, "", nil)
		a := award(fmt.Sprintf("6803%07d", i), 100_000_00, int64(78_000_00+i*700_00), w)
		if _, err := s.ApplyAward(ctx, a, time.Now()); err != nil {
			t.Fatal(err)
		}
		all = append(all, a)
	}
	if err := s.RefreshRollups(ctx); err != nil {
		t.Fatal(err)
	}
	eventually.True(t, 30*time.Second, "the replica has the awards", func() bool {
		var n int
		return replica.QueryRow(ctx, "SELECT count(*) FROM awards").Scan(&n) == nil && n == len(all)
	})
	// Checked once an hour: the kill below is not noticed by a check.
	reads := pgdb.NewReads(primary, replica, pgdb.ReadsOptions{Interval: time.Hour, MaxLag: time.Hour})
	defer reads.Close()
	if !reads.Healthy() {
		t.Fatal("the replica is not healthy")
	}
	s.ReadOn(reads)
	user := func() context.Context { return pgdb.WithSession(ctx, pgdb.NewSession(true, "")) }
	figures := func(phase string) {
		t.Helper()
		for _, f := range []domain.Filter{{}, {Depts: []string{"0701"}}, {And: []string{domain.NameKey("ถนน")}}} {
			got, err := s.Benchmark(user(), f)
			if err != nil {
				t.Fatalf("%s: benchmark: %v", phase, err)
			}
			if diff := benchkit.Oracle(all).Diff(got); diff != "" {
				t.Fatalf("%s %+v: %s", phase, f, diff)
			}
		}
		if sizes, err := s.GroupSizes(user(), []domain.Group{{Basis: "category", TypeCode: "02"}}); err != nil || sizes[0] != int64(len(all)) {
			t.Fatalf("%s: group sizes %v %v", phase, sizes, err)
		}
		if sup, ok, err := s.Supplier(user(), taxID(1)); err != nil || !ok || sup.Wins != 10 {
			t.Fatalf("%s: supplier %+v %v %v", phase, sup, ok, err)
		}
		if hits, err := s.SearchSuppliers(user(), domain.NameKey("ผู้รับเหมา"), "", 10); err != nil || len(hits) != 3 {
			t.Fatalf("%s: supplier search %+v %v", phase, hits, err)
		}
		if ag, ok, err := s.Agency(user(), "0701"); err != nil || !ok || ag.Projects != int64(len(all)) {
			t.Fatalf("%s: agency %+v %v %v", phase, ag, ok, err)
		}
	}
	figures("replica up")
	if reads.ReplicaReads() == 0 {
		t.Fatal("no figure read on the replica")
	}
	pair.KillReplica()
	// A killed postmaster's backends live on a moment (pgreplica) and can
	// still answer on the pool's open connections, so the reads below
	// might never fail (a CI run once saw all of them succeed); closed,
	// the pool dials the dead replica as it would once they exit.
	replica.Reset()
	figures("replica killed")
	if reads.Healthy() {
		t.Fatal("a failed replica read did not take the replica out")
	}
}
