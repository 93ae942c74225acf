package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"bidradar/pkg/apperr"
	"bidradar/pkg/queue"
	"bidradar/services/subscription/internal/adapters/localpay"
	"bidradar/services/subscription/internal/adapters/postgres"
	"bidradar/services/subscription/internal/app"
	"bidradar/services/subscription/internal/domain"
)

// flaky is a provider whose stop calls fail until failures runs out, then
// succeed (or answer answer, when set); release, when set, holds every call
// until it is closed.
type flaky struct {
	localpay.Provider
	mu       sync.Mutex
	failures int
	answer   error
	release  chan struct{}
	calls    []string // every call, failed or not
	stopped  []string // the calls that succeeded
}

func (f *flaky) stop(call string) error {
	f.mu.Lock()
	f.calls = append(f.calls, call)
	release := f.release
	f.mu.Unlock()
	if release != nil {
		<-release
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failures > 0 {
		f.failures--
		return apperr.Wrap(errors.New("stripe down"), apperr.Unavailable, domain.ErrNoProvider.Slug, domain.ErrNoProvider.Message)
	}
	if f.answer != nil {
		return f.answer
	}
	f.stopped = append(f.stopped, call)
	return nil
}

func (f *flaky) CancelNow(_ context.Context, id string) error { return f.stop("cancel now " + id) }

func (f *flaky) SetCancelAtPeriodEnd(_ context.Context, id string, cancel bool) error {
	return f.stop(fmt.Sprintf("cancel_at_period_end %s %v", id, cancel))
}

func (f *flaky) counts() (calls, stopped int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.calls), len(f.stopped)
}

// logs keeps the JSON records of a logger.
type logs struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logs) Write(p []byte) (int, error) { l.mu.Lock(); defer l.mu.Unlock(); return l.buf.Write(p) }

func (l *logs) records(t *testing.T, level string) []map[string]any {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	dec := json.NewDecoder(bytes.NewReader(l.buf.Bytes()))
	for dec.More() {
		var r map[string]any
		if err := dec.Decode(&r); err != nil {
			t.Fatal(err)
		}
		if r["level"] == level {
			out = append(out, r)
		}
	}
	return out
}

type pendingRow struct {
	attempts  int
	next      time.Time
	done      bool
	lastError string
	atEnd     bool
}

// pending is the latest stop of provider subscription id queued.
func pending(t *testing.T, pool *pgxpool.Pool, id string) pendingRow {
	t.Helper()
	var r pendingRow
	if err := pool.QueryRow(context.Background(), `SELECT attempts, next_attempt_at, done_at IS NOT NULL, coalesce(last_error, ''),
		kind = $2 FROM queue_jobs WHERE key = $1 AND kind IN ($2, $3) ORDER BY id DESC LIMIT 1`,
		id, domain.JobCancelAtPeriodEnd, domain.JobCancelNow).Scan(&r.attempts, &r.next, &r.done, &r.lastError, &r.atEnd); err != nil {
		t.Fatal(err)
	}
	return r
}

// stopQueued queues a stop of provider subscription id, due at due, as a
// plan change does.
func stopQueued(t *testing.T, pool *pgxpool.Pool, id string, atEnd bool, due time.Time) queue.Job {
	t.Helper()
	j := queue.Job{Kind: domain.JobCancelNow, Key: id, Destination: domain.ProviderDestination, Due: due}
	if atEnd {
		j.Kind = domain.JobCancelAtPeriodEnd
	}
	if err := queue.Enqueue(context.Background(), pool, j); err != nil {
		t.Fatal(err)
	}
	return j
}

// An upgrade whose cancel of the old card fails (Stripe down) still grants
// the plan; the cancel stays queued and is retried after 1 min,
// 5 min, 30 min … until it succeeds, logging each failure at error with
// its attempt count; then it is done and nothing calls again.
func TestReplacedCardRetriedUntilStopped(t *testing.T) {
	pool := open(t)
	ctx := context.Background()
	t0 := bangkok(2026, 11, 25, 10)
	c := &clock{t: t0}
	p := &flaky{failures: 3}
	out := &logs{}
	a := app.New(postgres.New(pool), p, c.now, slog.New(slog.NewJSONHandler(out, nil)))
	exec(t, pool, `INSERT INTO subscriptions (user_id, tier, status, start_date, end_date, method, period, provider_subscription_id)
		VALUES ('ann', 'starter', 'active', '2026-11-10', '2026-12-09', 'card', 'monthly', 'sub_old')`)
	s, err := a.Checkout(ctx, "ann", "ann@example.com", "pro", "monthly", "card", "k")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.CompleteLocal(ctx, "ann", s.ID, true); err != nil {
		t.Fatalf("a provider failure failed the fulfilment: %v", err)
	}
	runJobs(t, pool, a, c.now) // the worker, woken by the queued cancel
	if plan, _ := a.Current(ctx, "ann"); plan.Tier.Name != "pro" {
		t.Fatalf("upgrade not granted: %s", plan.Tier.Name)
	}
	if calls, _ := p.counts(); calls != 1 {
		t.Fatalf("%d calls, want 1 at once", calls)
	}
	if r := pending(t, pool, "sub_old"); r.done || r.attempts != 1 || r.atEnd || r.lastError == "" || !r.next.Equal(t0.Add(time.Minute)) {
		t.Fatalf("after the first failure: %+v", r)
	}
	job := func(at time.Time) int {
		t.Helper()
		c.set(at)
		return runJobs(t, pool, a, c.now).Claimed
	}
	for _, s := range []struct {
		at    time.Duration
		tried int
	}{
		{0, 0},                               // just failed: waits
		{59 * time.Second, 0},                // before 1 min
		{time.Minute, 1},                     // attempt 2 fails: 5 min
		{6*time.Minute - time.Second, 0},     //
		{6 * time.Minute, 1},                 // attempt 3 fails: 30 min
		{36*time.Minute - time.Second, 0},    //
		{36 * time.Minute, 1},                // attempt 4 succeeds
		{36*time.Minute + 10*time.Second, 0}, // done
		{36*time.Minute + 7*24*time.Hour, 0}, // for good
	} {
		if n := job(t0.Add(s.at)); n != s.tried {
			t.Fatalf("at +%s: %d tried, want %d", s.at, n, s.tried)
		}
	}
	calls, stopped := p.counts()
	if calls != 4 || stopped != 1 || p.stopped[0] != "cancel now sub_old" {
		t.Fatalf("%d calls, %d succeeded (%v), want 4 and one cancel now sub_old", calls, stopped, p.stopped)
	}
	if r := pending(t, pool, "sub_old"); !r.done || r.attempts != 4 {
		t.Fatalf("not done after success: %+v", r)
	}
	errs := out.records(t, "ERROR")
	if len(errs) != 3 {
		t.Fatalf("%d error records, want one a failure: %v", len(errs), errs)
	}
	for i, r := range errs {
		if r["attempts"] != float64(i+1) || r["subscription"] != "sub_old" || r["alert"] != nil {
			t.Fatalf("failure %d logged as %v", i+1, r)
		}
	}
}

// A stop that keeps failing is never given up: past 4 attempts it waits
// 6 h each time, and from the 10th attempt on every failure is logged as
// an alert for an operator; when the provider recovers, it is done.
func TestReplacedCardNeverGivenUp(t *testing.T) {
	pool := open(t)
	t0 := bangkok(2026, 11, 25, 10)
	c := &clock{t: t0}
	p := &flaky{failures: 12}
	out := &logs{}
	a := app.New(postgres.New(pool), p, c.now, slog.New(slog.NewJSONHandler(out, nil)))
	stopQueued(t, pool, "sub_x", true, t0)
	at := t0
	for i := 1; i <= 13; i++ {
		c.set(at)
		if st := runJobs(t, pool, a, c.now); st.Claimed != 1 {
			t.Fatalf("attempt %d: %+v", i, st)
		}
		r := pending(t, pool, "sub_x")
		if i == 13 {
			if !r.done {
				t.Fatalf("not done once the provider answered: %+v", r)
			}
			break
		}
		wait := r.next.Sub(at)
		if r.done || r.attempts != i || wait != domain.CancelRetryAfter(i) || (i >= 5 && wait != 6*time.Hour) {
			t.Fatalf("attempt %d: %+v (waits %s)", i, r, wait)
		}
		at = r.next
	}
	errs := out.records(t, "ERROR")
	alerts := 0
	for _, r := range errs {
		if r["alert"] == true {
			alerts++
			if r["attempts"].(float64) < domain.CancelAlarmAttempts {
				t.Fatalf("alert before attempt %d: %v", domain.CancelAlarmAttempts, r)
			}
		}
	}
	if len(errs) != 12 || alerts != 3 {
		t.Fatalf("%d error records (%d alerts), want 12 with alerts for attempts 10, 11, 12", len(errs), alerts)
	}
	if calls, stopped := p.counts(); calls != 13 || stopped != 1 {
		t.Fatalf("%d calls, %d stopped", calls, stopped)
	}
}

// Replicas run their queue workers at once while the provider is slow: the
// job is leased by one, so the provider is called once; many due jobs are
// each called once across replicas.
func TestProviderCancelOnceAcrossReplicas(t *testing.T) {
	pool := open(t)
	ctx := context.Background()
	t0 := bangkok(2026, 11, 25, 10)
	c := &clock{t: t0}
	p := &flaky{release: make(chan struct{})}
	stopQueued(t, pool, "sub_slow", false, t0)
	var once sync.Once
	free := func() { once.Do(func() { close(p.release) }) }
	t.Cleanup(free) // a failing test lets the held calls go
	const replicas = 4
	done := make(chan int, replicas)
	for range replicas {
		a := app.New(postgres.New(pool), p, c.now, nil)
		go func() { done <- runJobs(t, pool, a, c.now).Claimed }()
	}
	for i := range replicas - 1 { // all but the one inside the provider call finish
		select {
		case n := <-done:
			if n != 0 {
				t.Fatalf("replica %d tried %d while another held the row", i, n)
			}
		case <-time.After(10 * time.Second):
			calls, _ := p.counts()
			t.Fatalf("replicas still waiting: %d provider calls in progress", calls)
		}
	}
	free()
	if n := <-done; n != 1 {
		t.Fatalf("the claiming replica tried %d", n)
	}
	if calls, stopped := p.counts(); calls != 1 || stopped != 1 {
		t.Fatalf("%d calls, want 1", calls)
	}
	if r := pending(t, pool, "sub_slow"); !r.done || r.attempts != 1 {
		t.Fatalf("%+v", r)
	}

	// 40 due jobs, 4 replicas taking 3 at a time until none is left.
	q := &flaky{}
	for i := range 40 {
		stopQueued(t, pool, fmt.Sprint("sub_", i), i%2 == 0, t0)
	}
	var wg sync.WaitGroup
	for range replicas {
		a := app.New(postgres.New(pool), q, c.now, nil)
		w, err := queue.New(pool, queue.Options{Concurrency: 3, Now: c.now, Log: quiet}, a.Jobs()...)
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			if _, err := w.RunDue(ctx); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	seen := map[string]int{}
	for _, call := range q.calls {
		seen[call]++
	}
	if len(q.calls) != 40 || len(seen) != 40 {
		t.Fatalf("%d calls for %d rows, want each of 40 once", len(q.calls), len(seen))
	}
	if n := count(t, pool, `SELECT count(*) FROM queue_jobs WHERE kind LIKE 'subscription.cancel-%' AND done_at IS NULL`); n != 0 {
		t.Fatalf("%d rows not done", n)
	}
}

// A provider answering that the subscription is cancelled already (Stripe's
// resource_missing) is a done stop: one call, no retry.
func TestProviderCancelAlreadyCancelledIsDone(t *testing.T) {
	pool := open(t)
	ctx := context.Background()
	t0 := bangkok(2026, 11, 25, 10)
	c := &clock{t: t0}
	p := &flaky{answer: apperr.Wrap(fmt.Errorf("%w: No such subscription", domain.ErrProviderSubGone),
		apperr.Unavailable, domain.ErrNoProvider.Slug, domain.ErrNoProvider.Message)}
	a := app.New(postgres.New(pool), p, c.now, nil)
	exec(t, pool, `INSERT INTO subscriptions (user_id, tier, status, start_date, end_date, method, period, provider_subscription_id)
		VALUES ('bob', 'enterprise', 'active', '2026-11-10', '2026-12-09', 'card', 'monthly', 'sub_bob')`)
	s, err := a.Checkout(ctx, "bob", "bob@example.com", "starter", "monthly", "card", "k")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.CompleteLocal(ctx, "bob", s.ID, true); err != nil {
		t.Fatal(err)
	}
	runJobs(t, pool, a, c.now)
	if r := pending(t, pool, "sub_bob"); !r.done || r.attempts != 1 || !r.atEnd {
		t.Fatalf("downgrade's stop at period end: %+v", r)
	}
	c.set(t0.Add(24 * time.Hour))
	if st := runJobs(t, pool, a, c.now); st.Claimed != 0 {
		t.Fatalf("retried a done stop: %+v", st)
	}
	if calls, _ := p.counts(); calls != 1 {
		t.Fatalf("%d calls, want 1", calls)
	}
}
