package pgdb_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"bidradar/pkg/pgdb"
	"bidradar/pkg/testutil/eventually"
	"bidradar/pkg/testutil/pgreplica"
)

func openPools(t *testing.T, pair *pgreplica.Pair) (primary, replica *pgxpool.Pool) {
	t.Helper()
	ctx := context.Background()
	primary, err := pgdb.Open(ctx, pair.PrimaryURL("postgres"), "reads")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(primary.Close)
	if _, err := primary.Exec(ctx, "CREATE TABLE reads.marks (id int PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	cfg, err := pgxpool.ParseConfig(pair.ReplicaURL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = "reads, public"
	replica, err = pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	eventually.True(t, 30*time.Second, "the replica has the table", func() bool {
		_, err := replica.Exec(ctx, "SELECT 1 FROM marks")
		return err == nil
	})
	return primary, replica
}

func count(ctx context.Context, reads *pgdb.Reads, id int) (n int, err error) {
	err = reads.Read(ctx, func(p *pgxpool.Pool) error {
		return p.QueryRow(ctx, "SELECT count(*) FROM marks WHERE id = $1", id).Scan(&n)
	})
	return n, err
}

// A user's write is visible to their next read although the replica is
// held back: the write's position sends the read to the primary, while a
// read without one is served (stale) by the replica.
func TestReadYourWritesAgainstAPausedReplica(t *testing.T) {
	pair := pgreplica.Start(t)
	primary, replica := openPools(t, pair)
	reads := pgdb.NewReads(primary, replica, pgdb.ReadsOptions{MaxLag: time.Hour, Interval: 100 * time.Millisecond})
	defer reads.Close()
	eventually.True(t, 10*time.Second, "replica healthy", reads.Healthy)
	pair.PauseReplay()

	ctx := context.Background()
	for i := 1; i <= 100; i++ {
		w := pgdb.NewSession(true, "")
		wctx := pgdb.WithSession(ctx, w)
		if _, err := reads.Primary().Exec(wctx, "INSERT INTO marks VALUES ($1)", i); err != nil {
			t.Fatal(err)
		}
		if !w.Wrote() {
			t.Fatal("the insert was not recorded as a write")
		}
		// The same call reads its own write (on the primary).
		if n, err := count(wctx, reads, i); err != nil || n != 1 {
			t.Fatalf("pair %d: the writing call read back %d rows (%v)", i, n, err)
		}
		lsn, err := reads.CurrentLSN(wctx)
		if err != nil {
			t.Fatal(err)
		}
		// The next request carries the position (the cookie).
		n, err := count(pgdb.WithSession(ctx, pgdb.NewSession(true, lsn)), reads, i)
		if err != nil || n != 1 {
			t.Fatalf("pair %d: own write read back %d rows (%v)", i, n, err)
		}
		// Someone else's read is served by the held-back replica.
		before := reads.ReplicaReads()
		n, err = count(pgdb.WithSession(ctx, pgdb.NewSession(true, "")), reads, i)
		if err != nil || n != 0 || reads.ReplicaReads() != before+1 {
			t.Fatalf("pair %d: a read without the position saw %d rows on the replica? (%v, replica reads %d→%d)", i, n, err, before, reads.ReplicaReads())
		}
	}
	// Internal calls (no replica allowed) read on the primary.
	if n, err := count(pgdb.WithSession(ctx, pgdb.NewSession(false, "")), reads, 100); err != nil || n != 1 {
		t.Fatalf("internal read: %d rows (%v)", n, err)
	}
	pair.ResumeReplay()
	lsn, err := reads.CurrentLSN(ctx)
	if err != nil {
		t.Fatal(err)
	}
	eventually.True(t, 10*time.Second, "the caught-up replica serves the writer again", func() bool {
		before := reads.ReplicaReads()
		n, err := count(pgdb.WithSession(ctx, pgdb.NewSession(true, lsn)), reads, 100)
		return err == nil && n == 1 && reads.ReplicaReads() == before+1
	})
}

// A replica lagging more than MaxLag, or down, reads nothing within 5 s;
// it serves again once it has caught up or is back.
func TestReadsFallBackToThePrimary(t *testing.T) {
	pair := pgreplica.Start(t)
	primary, replica := openPools(t, pair)
	reads := pgdb.NewReads(primary, replica, pgdb.ReadsOptions{MaxLag: time.Second, Interval: 200 * time.Millisecond})
	defer reads.Close()
	eventually.True(t, 10*time.Second, "replica healthy", reads.Healthy)
	ctx := context.Background()

	pair.PauseReplay()
	if _, err := primary.Exec(ctx, "INSERT INTO marks VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	eventually.True(t, 5*time.Second, "a lagging replica is taken out", func() bool { return !reads.Healthy() })
	if n, err := count(pgdb.WithSession(ctx, pgdb.NewSession(true, "")), reads, 1); err != nil || n != 1 {
		t.Fatalf("read during lag: %d rows (%v)", n, err)
	}
	pair.ResumeReplay()
	eventually.True(t, 5*time.Second, "the caught-up replica returns", reads.Healthy)

	pair.KillReplica()
	// A read in flight at the kill runs again on the primary.
	for range 5 {
		if n, err := count(pgdb.WithSession(ctx, pgdb.NewSession(true, "")), reads, 1); err != nil || n != 1 {
			t.Fatalf("read with the replica down: %d rows (%v)", n, err)
		}
	}
	eventually.True(t, 5*time.Second, "a dead replica is taken out", func() bool { return !reads.Healthy() })
	start := time.Now()
	pair.StartReplica()
	eventually.True(t, 10*time.Second, "the restarted replica returns", reads.Healthy)
	t.Logf("replica back in reads %s after its start", time.Since(start).Round(time.Millisecond))
}
