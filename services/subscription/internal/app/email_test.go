package app_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"bidradar/services/subscription/internal/adapters/localpay"
	"bidradar/services/subscription/internal/adapters/postgres"
	"bidradar/services/subscription/internal/app"
	"bidradar/services/subscription/internal/domain"
)

// A user moves to a new address (auth.v1.user.email_changed): the plan's
// reminders, mail still queued to the old address and the receipt of a
// checkout opened before the move all go to the new one, and so does a
// checkout opened after it with an access token issued before it. The event applies
// once however often it is delivered, an older change arriving late does
// not bring an old address back, and an erased address (a deleted account)
// stays erased.
func TestEmailChangeFollowsTheAccount(t *testing.T) {
	pool := open(t)
	ctx := context.Background()
	c := &clock{t: bangkok(2026, 11, 1, 10)}
	box := &outbox{}
	a := app.New(postgres.New(pool), localpay.Provider{}, c.now, nil).WithMail(box, "https://bidradar.example")
	const (
		old   = "ann@example.com"
		moved = "ann.new@example.com"
		stale = "ann.between@example.com"
	)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	pay := func(tier, key string) string {
		t.Helper()
		s, err := a.Checkout(ctx, "ann", old, tier, "monthly", "card", key)
		must(err)
		return s.ID
	}
	_, err := a.CompleteLocal(ctx, "ann", pay("pro", "k1"), true)
	must(err)
	upgrade := pay("enterprise", "k2") // opened at the old address, paid after the move
	exec(t, pool, `INSERT INTO subscriptions (user_id, tier, status, start_date, end_date, method, period, email) VALUES
		('bob', 'pro', 'active', '2026-11-01', '2026-11-30', 'promptpay', 'monthly', 'bob@example.com'),
		('carl', 'pro', 'active', '2026-11-01', '2026-11-30', 'promptpay', 'monthly', '')`)
	runJobs(t, pool, a, c.now)
	if got := box.all(); len(got) != 1 || got[0].To != old {
		t.Fatalf("first receipt: %+v", got)
	}

	// The 7-day reminder is queued to the old address while mail is down.
	plan, err := a.Current(ctx, "ann")
	must(err)
	end := *plan.Sub.EndDate
	c.set(time.Date(end.Year(), end.Month(), end.Day()-7, 9, 0, 0, 0, end.Location()))
	box.fail = errors.New("smtp down")
	_, err = a.SendReminders(ctx)
	must(err)
	runJobs(t, pool, a, c.now)
	if n := count(t, pool, `SELECT count(*) FROM queue_jobs WHERE kind = 'mail' AND payload->>'to' = $1 AND done_at IS NULL`, old); n != 1 {
		t.Fatalf("%d mails waiting for the old address, want the reminder", n)
	}

	at := c.now().Add(-time.Hour)
	var wg sync.WaitGroup
	for range 5 { // one event, delivered five times at once
		wg.Go(func() {
			if err := a.EmailChanged(ctx, "ev-2", "ann", moved, at); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	must(a.EmailChanged(ctx, "ev-1", "ann", stale, at.Add(-time.Minute))) // older, arriving late
	must(a.EmailChanged(ctx, "ev-3", "carl", "carl.new@example.com", at))
	must(a.EmailChanged(ctx, "ev-4", "dan", "dan@example.com", at)) // nothing stored for dan
	if n := count(t, pool, `SELECT count(*) FROM processed_events WHERE event_id = 'ev-2'`); n != 1 {
		t.Fatalf("ev-2 processed %d times", n)
	}
	// A checkout takes the address of the change when its access token is
	// older than the change, the token's otherwise.
	for _, c := range []struct {
		user, token string
		issued      time.Time
		want        string
	}{
		{"ann", old, at.Add(-10 * time.Minute), moved},
		{"ann", moved, at.Add(time.Minute), moved},
		{"ann", "ann.newest@example.com", at.Add(time.Minute), "ann.newest@example.com"}, // its change not here yet
		{"dan", "dan@example.com", at.Add(-time.Hour), "dan@example.com"},
	} {
		if got, err := a.AccountEmail(ctx, c.user, c.token, c.issued); err != nil || got != c.want {
			t.Errorf("%s with a token of %s issued %s: %q %v, want %q", c.user, c.token, c.issued, got, err, c.want)
		}
	}
	for q, want := range map[string]int{
		`SELECT count(*) FROM subscriptions WHERE user_id = 'ann' AND email = '` + moved + `'`:                                           1,
		`SELECT count(*) FROM checkouts WHERE user_id = 'ann' AND email <> '` + moved + `'`:                                              0,
		`SELECT count(*) FROM subscriptions WHERE user_id = 'bob' AND email = 'bob@example.com'`:                                         1,
		`SELECT count(*) FROM subscriptions WHERE user_id = 'carl' AND email = ''`:                                                       1,
		`SELECT count(*) FROM queue_jobs WHERE kind = 'mail' AND payload->>'to' IN ('` + old + `', '` + stale + `') AND done_at IS NULL`: 0,
	} {
		if n := count(t, pool, q); n != want {
			t.Errorf("%s: %d, want %d", q, n, want)
		}
	}

	box.fail = nil
	c.set(c.now().Add(time.Hour)) // past the back-off
	runJobs(t, pool, a, c.now)
	_, err = a.CompleteLocal(ctx, "ann", upgrade, true)
	must(err)
	runJobs(t, pool, a, c.now)
	var got []domain.Mail // ann's (bob's own reminder went out too)
	for _, m := range box.all() {
		if m.To != "bob@example.com" {
			got = append(got, m)
		}
	}
	if len(got) != 3 || got[1].To != moved || !strings.Contains(got[1].Subject, "7 วัน") ||
		got[2].To != moved || !strings.Contains(got[2].Subject, "ใบเสร็จ") {
		t.Fatalf("after the move: %+v", got)
	}

	// A deleted account: the address is erased and a late change keeps it so.
	must(a.ForgetUser(ctx, "ann"))
	must(a.EmailChanged(ctx, "ev-5", "ann", "ann.late@example.com", at.Add(time.Minute)))
	if n := count(t, pool, `SELECT count(*) FROM subscriptions WHERE user_id = 'ann' AND email <> ''`) +
		count(t, pool, `SELECT count(*) FROM checkouts WHERE user_id = 'ann' AND email <> ''`) +
		count(t, pool, `SELECT count(*) FROM email_changes WHERE user_id = 'ann' AND email IS NOT NULL`); n != 0 {
		t.Fatalf("%d rows hold an address after the deletion", n)
	}
}
