package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"bidradar/services/subscription/internal/adapters/postgres"
	"bidradar/services/subscription/internal/domain"
)

// fulfilCancel fulfils one event whose change asks the provider to stop
// sub (with a payment of amount: a negative one fails after the cancel was
// written, so the transaction rolls back).
func fulfilCancel(repo *postgres.Repo, id, sub string, atEnd bool, amount int64, now time.Time) error {
	ev := domain.Event{ID: id, Type: domain.EvCheckoutCompleted, Created: now, UserID: "u1"}
	_, _, err := repo.Fulfil(context.Background(), ev, now, func(domain.FulfilState) domain.Change {
		return domain.Change{ProviderCancel: &domain.ProviderCancel{SubscriptionID: sub, AtPeriodEnd: atEnd},
			Payment: &domain.PaymentRecord{UserID: "u1", Tier: "pro", Period: "monthly", Method: "card",
				AmountSatang: amount, Succeeded: true, ProviderRef: "cs_" + id}}
	}, mailOf)
	return err
}

// The pending cancel is queued with the change or not at all; a request
// to cancel now replaces a pending one for the period's end and outranks
// a done one, never the reverse.
func TestProviderCancelWrittenWithTheChange(t *testing.T) {
	repo, pool := open(t)
	ctx := context.Background()
	type job struct {
		kind         string
		attempts     int
		next         time.Time
		done, failed bool
	}
	jobs := func(id string) []job {
		t.Helper()
		rows, err := pool.Query(ctx, `SELECT kind, attempts, next_attempt_at, done_at IS NOT NULL, failed_at IS NOT NULL
			FROM queue_jobs WHERE key = $1 AND kind LIKE 'subscription.cancel-%' ORDER BY id`, id)
		if err != nil {
			t.Fatal(err)
		}
		out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (job, error) {
			var j job
			err := r.Scan(&j.kind, &j.attempts, &j.next, &j.done, &j.failed)
			return j, err
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if err := fulfilCancel(repo, "evt_bad", "sub_a", false, -1, paidAt); err == nil {
		t.Fatal("a failing write committed")
	}
	if got := jobs("sub_a"); len(got) != 0 {
		t.Fatalf("a rolled back change left pending cancels: %+v", got)
	}
	if err := fulfilCancel(repo, "evt_1", "sub_a", true, 49000, paidAt); err != nil {
		t.Fatal(err)
	}
	if got := jobs("sub_a"); len(got) != 1 || got[0] != (job{kind: domain.JobCancelAtPeriodEnd, next: got[0].next}) || !got[0].next.Equal(paidAt) {
		t.Fatalf("written: %+v", got)
	}
	// Asked again: nothing more.
	if err := fulfilCancel(repo, "evt_1b", "sub_a", true, 49000, paidAt.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if got := jobs("sub_a"); len(got) != 1 || !got[0].next.Equal(paidAt) {
		t.Fatalf("asked twice: %+v", got)
	}

	// Cancel now replaces the pending period-end request; period end then
	// changes nothing.
	later := paidAt.Add(time.Hour)
	if err := fulfilCancel(repo, "evt_2", "sub_a", false, 49000, later); err != nil {
		t.Fatal(err)
	}
	if err := fulfilCancel(repo, "evt_3", "sub_a", true, 49000, later.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	got := jobs("sub_a")
	if len(got) != 2 || got[0].kind != domain.JobCancelAtPeriodEnd || !got[0].failed ||
		got[1].kind != domain.JobCancelNow || got[1].attempts != 0 || !got[1].next.Equal(later) || got[1].done || got[1].failed {
		t.Fatalf("cancel now: %+v", got)
	}

	// A done period-end stop is outranked by a cancel now too.
	if err := fulfilCancel(repo, "evt_4", "sub_b", true, 49000, paidAt); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `UPDATE queue_jobs SET done_at = $1 WHERE key = 'sub_b'`, paidAt); err != nil {
		t.Fatal(err)
	}
	if err := fulfilCancel(repo, "evt_5", "sub_b", false, 49000, later); err != nil {
		t.Fatal(err)
	}
	if got := jobs("sub_b"); len(got) != 2 || !got[0].done || got[1].kind != domain.JobCancelNow || got[1].done || !got[1].next.Equal(later) {
		t.Fatalf("cancel now after a done period-end stop: %+v", got)
	}
}
