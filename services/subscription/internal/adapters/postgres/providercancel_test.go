package postgres_test

import (
	"context"
	"testing"
	"time"

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

// The pending cancel is written with the change or not at all; a request
// to cancel now overrides one for the period's end (done or not), never the
// reverse; a claim's outcome counts only while the claim is held.
func TestProviderCancelWrittenWithTheChange(t *testing.T) {
	repo, pool := open(t)
	ctx := context.Background()
	row := func(id string) (atEnd bool, attempts int, next time.Time, done bool) {
		t.Helper()
		if err := pool.QueryRow(ctx, `SELECT at_period_end, attempts, next_attempt_at, done_at IS NOT NULL
			FROM provider_cancels WHERE subscription_id = $1`, id).Scan(&atEnd, &attempts, &next, &done); err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		return
	}
	if err := fulfilCancel(repo, "evt_bad", "sub_a", false, -1, paidAt); err == nil {
		t.Fatal("a failing write committed")
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM provider_cancels`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("a rolled back change left %d pending cancels (%v)", n, err)
	}
	if err := fulfilCancel(repo, "evt_1", "sub_a", true, 49000, paidAt); err != nil {
		t.Fatal(err)
	}
	if atEnd, attempts, next, done := row("sub_a"); !atEnd || attempts != 0 || !next.Equal(paidAt) || done {
		t.Fatalf("written: %v %d %s %v", atEnd, attempts, next, done)
	}
	got, err := repo.ClaimProviderCancels(ctx, paidAt, time.Minute, 10, "")
	if err != nil || len(got) != 1 || got[0].Attempts != 1 || !got[0].Lease.Equal(paidAt.Add(time.Minute)) {
		t.Fatalf("claim: %+v %v", got, err)
	}
	if again, err := repo.ClaimProviderCancels(ctx, paidAt.Add(30*time.Second), time.Minute, 10, ""); err != nil || len(again) != 0 {
		t.Fatalf("claimed twice within the lease: %+v %v", again, err)
	}
	if err := repo.ProviderCancelDone(ctx, got[0], paidAt); err != nil {
		t.Fatal(err)
	}

	// Cancel now overrides the done period-end request; period end then
	// changes nothing.
	later := paidAt.Add(time.Hour)
	if err := fulfilCancel(repo, "evt_2", "sub_a", false, 49000, later); err != nil {
		t.Fatal(err)
	}
	if err := fulfilCancel(repo, "evt_3", "sub_a", true, 49000, later.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if atEnd, attempts, next, done := row("sub_a"); atEnd || attempts != 0 || !next.Equal(later) || done {
		t.Fatalf("cancel now: %v %d %s %v", atEnd, attempts, next, done)
	}

	// A worker whose lease ran out loses its claim: its outcome is ignored
	// while the next worker holds the row.
	first, err := repo.ClaimProviderCancels(ctx, later, time.Minute, 10, "sub_a")
	if err != nil || len(first) != 1 {
		t.Fatalf("%+v %v", first, err)
	}
	second, err := repo.ClaimProviderCancels(ctx, later.Add(2*time.Minute), time.Minute, 10, "sub_a")
	if err != nil || len(second) != 1 || second[0].Attempts != 2 {
		t.Fatalf("after the lease: %+v %v", second, err)
	}
	if err := repo.ProviderCancelFailed(ctx, first[0], later.Add(time.Hour), "late failure"); err != nil {
		t.Fatal(err)
	}
	if err := repo.ProviderCancelDone(ctx, first[0], later); err != nil {
		t.Fatal(err)
	}
	if _, attempts, next, done := row("sub_a"); attempts != 2 || !next.Equal(second[0].Lease) || done {
		t.Fatalf("a lost claim changed the row: %d %s %v", attempts, next, done)
	}
	if err := repo.ProviderCancelFailed(ctx, second[0], later.Add(10*time.Minute), "stripe down"); err != nil {
		t.Fatal(err)
	}
	if _, attempts, next, done := row("sub_a"); attempts != 2 || !next.Equal(later.Add(10*time.Minute)) || done {
		t.Fatalf("failure not recorded: %d %s %v", attempts, next, done)
	}
}
