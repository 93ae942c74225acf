package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"bidradar/pkg/testutil/pgtest"
	"bidradar/services/notification/internal/adapters/postgres"
	"bidradar/services/notification/internal/app"
	"bidradar/services/notification/internal/domain"
	"bidradar/services/notification/notificationsvc"
)

// BenchmarkMatchFanOut measures instant saved-search alerts written through
// the app and the store into a database of its own (dropped after), one
// event at a time as the consumer handles them: each iteration is a new
// project matching the searches of FANOUT_USERS users (default 160), drawn
// from FANOUT_POPULATION users (default 25 000), one in eight of them with
// a second matching search; every user has the default settings (the
// bell only, no deliveries).
//
//   - project.matched: one ProjectMatched event a project (app.ProjectMatched),
//     one notification a user.
//   - criteria.matched: the older producer's instant event a search and
//     project (app.CriteriaMatched), for comparison; a user's second
//     search makes a second notification, as it always did.
//
// notifications/s counts the rows written (checked against the table).
// FANOUT_VACUUM_EVERY=N runs VACUUM (ANALYZE) on the notifications every N
// events, inside the timing: autovacuum's work, for a server where it is off
// (without it no new row becomes all-visible, and each unread count reads
// every unread row's heap page). With -v the rate of every 2 000 events and
// the sizes of the tables are logged.
//
//	go test ./internal/adapters/postgres -run '^$' -bench MatchFanOut -benchtime 500x
func BenchmarkMatchFanOut(b *testing.B) {
	perEvent, population := envInt("FANOUT_USERS", 160), envInt("FANOUT_POPULATION", 25000)
	vacuumEvery := envInt("FANOUT_VACUUM_EVERY", 0)
	users := make([]string, population)
	for i := range users {
		users[i] = fmt.Sprintf("%08x-%04x-4000-8000-%012x", i, i%0x10000, i)
	}
	for _, kind := range []string{"project.matched", "criteria.matched"} {
		b.Run(kind, func(b *testing.B) {
			ctx := context.Background()
			pool, err := notificationsvc.Open(ctx, pgtest.NewDatabase(b))
			if err != nil {
				b.Fatal(err)
			}
			defer pool.Close()
			a := app.New(postgres.New(pool), nil)
			rng := rand.New(rand.NewPCG(11, 25))
			perm := make([]int, population)
			for i := range perm {
				perm[i] = i
			}
			var written int
			ev := 0
			lap, lapRows := time.Now(), 0
			for b.Loop() {
				b.StopTimer()
				// A random sample of perEvent users (partial Fisher-Yates).
				for i := range perEvent {
					j := i + rng.IntN(population-i)
					perm[i], perm[j] = perm[j], perm[i]
				}
				p := domain.MatchedProject{ID: fmt.Sprintf("69%09d", ev), Name: "จ้างก่อสร้างถนนคอนกรีตเสริมเหล็ก หมู่ที่ " + strconv.Itoa(ev%20),
					Agency: "องค์การบริหารส่วนตำบลบ้านนา", BudgetSatang: ptr(int64(250000000 + ev))}
				var ms []domain.Match
				for _, k := range perm[:perEvent] {
					ms = append(ms, domain.Match{UserID: users[k], CriteriaID: fmt.Sprintf("c-%d-a", k), CriteriaName: "ถนนคอนกรีต"})
					if k%8 == 0 {
						ms = append(ms, domain.Match{UserID: users[k], CriteriaID: fmt.Sprintf("c-%d-b", k), CriteriaName: "ก่อสร้างถนน"})
					}
				}
				b.StartTimer()
				switch kind {
				case "project.matched":
					err = a.ProjectMatched(ctx, fmt.Sprintf("pm-%d", ev), p, ms)
					written += perEvent
				default:
					for i, m := range ms {
						if err == nil {
							err = a.CriteriaMatched(ctx, fmt.Sprintf("cm-%d-%d", ev, i), m.UserID, m.CriteriaID, m.CriteriaName, "", []domain.MatchedProject{p}, 0)
						}
					}
					written += len(ms)
				}
				if err != nil {
					b.Fatal(err)
				}
				ev++
				if vacuumEvery > 0 && ev%vacuumEvery == 0 { // autovacuum's work, timed with the rest
					if _, err := pool.Exec(ctx, `VACUUM (ANALYZE) notifications`); err != nil {
						b.Fatal(err)
					}
				}
				if testing.Verbose() && ev%2000 == 0 { // does the rate hold while the tables grow?
					b.Logf("events %d: %.0f notifications/s over the last 2000 (wall clock)", ev, float64(written-lapRows)/time.Since(lap).Seconds())
					lap, lapRows = time.Now(), written
				}
			}
			b.StopTimer()
			var rows int
			if err := pool.QueryRow(ctx, `SELECT count(*) FROM notifications`).Scan(&rows); err != nil {
				b.Fatal(err)
			}
			if rows != written {
				b.Fatalf("%d rows, %d expected", rows, written)
			}
			if testing.Verbose() {
				var sizes string
				if err := pool.QueryRow(ctx, `SELECT string_agg(format('%s %s', c.relname, pg_size_pretty(pg_relation_size(c.oid))), ', ' ORDER BY c.relname)
					FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
					WHERE s.nspname = current_schema() AND c.relkind IN ('r', 'i') AND pg_relation_size(c.oid) > 1000000`).Scan(&sizes); err != nil {
					b.Fatal(err)
				}
				b.Logf("%d rows; sizes: %s", rows, sizes)
			}
			b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "notifications/s")
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(rows), "µs/notification")
		})
	}
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}
