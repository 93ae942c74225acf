package app_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"bidradar/pkg/queue"
	"bidradar/pkg/testutil/pgtest"
	"bidradar/services/subscription/internal/adapters/postgres"
	"bidradar/services/subscription/internal/app"
	"bidradar/services/subscription/internal/domain"
	"bidradar/services/subscription/subscriptionsvc"
)

// clock is a settable time shared by the app instances of a test.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

// outbox records what a mailer was asked to send.
type outbox struct {
	mu   sync.Mutex
	sent []domain.Mail
	fail error
}

func (o *outbox) Send(_ context.Context, m domain.Mail) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.fail != nil {
		return o.fail
	}
	o.sent = append(o.sent, m)
	return nil
}

func (o *outbox) all() []domain.Mail {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]domain.Mail(nil), o.sent...)
}

func open(t *testing.T) *pgxpool.Pool {
	t.Helper()
	pool, err := subscriptionsvc.Open(context.Background(), pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

func bangkok(y int, m time.Month, d, h int) time.Time {
	return time.Date(y, m, d, h, 0, 0, 0, domain.Bangkok)
}

func exec(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) {
	t.Helper()
	if _, err := pool.Exec(context.Background(), sql, args...); err != nil {
		t.Fatal(err)
	}
}

// runJobs runs the queued work of a due at now (plans past their end,
// provider cancels, mail) as the service's queue worker does: subscriptionsvc
// runs one woken by every insert, so a job a use case queues runs at once.
// Safe from several goroutines (replicas).
func runJobs(t *testing.T, pool *pgxpool.Pool, a *app.App, now func() time.Time) queue.Stats {
	t.Helper()
	w, err := queue.New(pool, queue.Options{Now: now, Log: quiet}, a.Jobs()...)
	if err != nil {
		t.Error(err)
		return queue.Stats{}
	}
	st, err := w.RunDue(context.Background())
	if err != nil {
		t.Error(err)
	}
	return st
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func count(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Two queue workers (two replicas) run the plan-end jobs at once: each
// plan moves once, when its end date has passed in Bangkok, and publishes
// one subscription.changed.
func TestExpiryOnceAcrossReplicas(t *testing.T) {
	pool := open(t)
	c := &clock{t: bangkok(2026, 11, 30, 12)}
	ctx := context.Background()
	exec(t, pool, `INSERT INTO subscriptions (user_id, tier, status, start_date, end_date, method, period) VALUES
		('ann', 'pro', 'active', '2026-11-01', '2026-11-30', 'promptpay', 'monthly'),
		('bob', 'pro', 'active', '2026-11-05', '2026-12-04', 'promptpay', 'monthly'),
		('cat', 'pro', 'active', '2026-11-01', '2026-11-30', 'card', 'monthly')`)
	exec(t, pool, `UPDATE subscriptions SET next_tier = 'starter', next_period = 'monthly', next_method = 'promptpay',
		next_end_date = '2026-12-30' WHERE user_id = 'cat'`)
	// Written once more through the store, as the service writes plans:
	// that puts each plan's plan-end job.
	repo := postgres.New(pool)
	for _, user := range []string{"ann", "bob", "cat"} {
		if _, err := repo.UpdatePlan(ctx, user, c.now(), func(s domain.Subscription, _ bool) (domain.Subscription, error) { return s, nil }); err != nil {
			t.Fatal(err)
		}
	}
	apps := []*app.App{
		app.New(postgres.New(pool), nil, c.now, nil),
		app.New(postgres.New(pool), nil, c.now, nil),
	}
	run := func() int {
		var wg sync.WaitGroup
		ran := make([]int, len(apps))
		for i, a := range apps {
			wg.Go(func() { ran[i] = runJobs(t, pool, a, c.now).Claimed })
		}
		wg.Wait()
		return ran[0] + ran[1]
	}
	if n := run(); n != 0 {
		t.Fatalf("on the last day (Bangkok) %d plan-end jobs ran", n)
	}
	c.set(bangkok(2026, 12, 1, 0).Add(time.Minute)) // 00:01 in Bangkok, still 30 Nov in UTC
	if n := run(); n != 2 {
		t.Fatalf("%d plan-end jobs ran, want ann's (expired) and cat's (downgrade started)", n)
	}
	if n := run(); n != 0 {
		t.Fatalf("a second run ran %d", n)
	}
	events := count(t, pool, `SELECT count(*) FROM outbox WHERE subject = 'subscription.v1.subscription.changed'`)
	if events != 2 {
		t.Fatalf("%d subscription.changed events, want 2", events)
	}
	plan, _ := apps[0].Current(ctx, "ann")
	if plan.Tier.Name != "free" || plan.Sub.Status != "expired" {
		t.Fatalf("ann: %s %s", plan.Tier.Name, plan.Sub.Status)
	}
	cat, _ := apps[0].Current(ctx, "cat")
	if cat.Tier.Name != "starter" || !cat.Sub.StartDate.Equal(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)) || cat.Sub.Next != nil {
		t.Fatalf("cat: %+v", cat.Sub)
	}
	if bob, _ := apps[0].Current(ctx, "bob"); bob.Tier.Name != "pro" {
		t.Fatalf("bob lost his plan early: %s", bob.Tier.Name)
	}
}

// Reminders 7 days and 1 day before a pass ends, once each, through the
// mail queue; a failed send is retried, then sent once.
func TestRemindersOnceEach(t *testing.T) {
	pool := open(t)
	c := &clock{t: bangkok(2026, 11, 22, 9)}
	ctx := context.Background()
	exec(t, pool, `INSERT INTO subscriptions (user_id, tier, status, start_date, end_date, method, period, email, provider_subscription_id) VALUES
		('ann', 'pro', 'active', '2026-11-01', '2026-11-30', 'promptpay', 'monthly', 'ann@example.com', NULL),
		('bob', 'pro', 'active', '2026-11-01', '2026-11-30', 'card', 'monthly', 'bob@example.com', 'sub_1')`)
	box := &outbox{}
	a := app.New(postgres.New(pool), nil, c.now, nil).WithMail(box, "https://bidradar.example")
	b := app.New(postgres.New(pool), nil, c.now, nil).WithMail(box, "https://bidradar.example")
	step := func(at time.Time) {
		c.set(at)
		var wg sync.WaitGroup
		for _, x := range []*app.App{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := x.SendReminders(ctx); err != nil {
					t.Error(err)
				}
				runJobs(t, pool, x, c.now)
			}()
		}
		wg.Wait()
	}
	step(bangkok(2026, 11, 22, 9)) // 8 days before: nothing
	if len(box.all()) != 0 {
		t.Fatalf("early reminder: %+v", box.all())
	}
	step(bangkok(2026, 11, 23, 9))
	step(bangkok(2026, 11, 23, 18))
	step(bangkok(2026, 11, 25, 9))
	got := box.all()
	if len(got) != 1 || got[0].To != "ann@example.com" || !strings.Contains(got[0].Subject, "7 วัน") ||
		!strings.Contains(got[0].Text, "30 พฤศจิกายน 2569") || !strings.Contains(got[0].Text, "https://bidradar.example/payment") {
		t.Fatalf("7-day reminder: %+v", got)
	}
	box.fail = errors.New("smtp down")
	step(bangkok(2026, 11, 29, 9))
	if len(box.all()) != 1 || count(t, pool, `SELECT count(*) FROM queue_jobs WHERE kind = 'mail' AND done_at IS NULL AND last_error = 'smtp down'`) != 1 {
		t.Fatal("a failed send is not kept for retry")
	}
	box.fail = nil
	step(bangkok(2026, 11, 29, 9).Add(30 * time.Second)) // within the back-off (1 min): not yet
	if len(box.all()) != 1 {
		t.Fatal("retried before the back-off")
	}
	step(bangkok(2026, 11, 29, 12))
	step(bangkok(2026, 11, 30, 9))
	got = box.all()
	if len(got) != 2 || !strings.Contains(got[1].Subject, "พรุ่งนี้") {
		t.Fatalf("1-day reminder: %+v", got)
	}
	if count(t, pool, `SELECT count(*) FROM pass_reminders`) != 2 {
		t.Fatal("reminders not remembered once each")
	}
}
