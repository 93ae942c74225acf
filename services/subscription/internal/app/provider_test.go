package app_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"bidradar/pkg/apperr"
	"bidradar/pkg/queue"
	"bidradar/services/subscription/internal/adapters/localpay"
	"bidradar/services/subscription/internal/adapters/postgres"
	"bidradar/services/subscription/internal/app"
	"bidradar/services/subscription/internal/domain"
)

// recorder is the local provider that remembers what it was asked to stop.
type recorder struct {
	localpay.Provider
	mu    sync.Mutex
	calls []string
	fail  error
	// during runs inside SetCancelAtPeriodEnd (what happens meanwhile).
	during func()
}

func (r *recorder) SetCancelAtPeriodEnd(_ context.Context, id string, cancel bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.during != nil {
		r.during()
	}
	if r.fail != nil {
		return r.fail
	}
	r.calls = append(r.calls, fmt.Sprintf("cancel_at_period_end %s %v", id, cancel))
	return nil
}

func (r *recorder) CancelNow(_ context.Context, id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, "cancel now "+id)
	return nil
}

// recordingApp is the app on a database of its own with a recorder for
// provider, its clock at 2026-11-25 10:00 in Bangkok.
func recordingApp(t *testing.T) (*pgxpool.Pool, *recorder, *app.App) {
	pool := open(t)
	p := &recorder{}
	c := &clock{t: bangkok(2026, 11, 25, 10)}
	return pool, p, app.New(postgres.New(pool), p, c.now, nil)
}

// runAt runs the queued jobs of a due now (the recording app's clock).
func runAt(t *testing.T, pool *pgxpool.Pool, a *app.App) queue.Stats {
	t.Helper()
	return runJobs(t, pool, a, a.Now)
}

func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.calls
	r.calls = nil
	return out
}

// The card subscription a new plan replaces stops charging: at once for an
// upgrade, at its period's end for a downgrade; cancel and resume go to the
// provider first, and a provider failure changes nothing.
func TestReplacedCardStopsAtTheProvider(t *testing.T) {
	pool, p, a := recordingApp(t)
	ctx := context.Background()
	card := func(user, tier string) {
		exec(t, pool, `INSERT INTO subscriptions (user_id, tier, status, start_date, end_date, method, period, provider_subscription_id)
			VALUES ($1, $2, 'active', '2026-11-10', '2026-12-09', 'card', 'monthly', 'sub_'||$1)`, user, tier)
	}
	buy := func(user, tier string) {
		s, err := a.Checkout(ctx, user, user+"@example.com", tier, "monthly", "card", "k-"+tier)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.CompleteLocal(ctx, user, s.ID, true); err != nil {
			t.Fatal(err)
		}
		runAt(t, pool, a)
	}
	card("ann", "starter")
	buy("ann", "pro")
	if got := p.take(); len(got) != 1 || got[0] != "cancel now sub_ann" {
		t.Fatalf("upgrade: %v", got)
	}
	card("bob", "enterprise")
	buy("bob", "starter")
	if got := p.take(); len(got) != 1 || got[0] != "cancel_at_period_end sub_bob true" {
		t.Fatalf("downgrade: %v", got)
	}
	if n := count(t, pool, `SELECT count(*) FROM queue_jobs WHERE kind LIKE 'subscription.cancel-%' AND done_at IS NOT NULL AND attempts = 1`); n != 2 {
		t.Fatalf("%d provider cancels done at the first attempt, want ann's and bob's", n)
	}
	bob, _ := a.Current(ctx, "bob")
	if bob.Tier.Name != "enterprise" || bob.Sub.Next == nil || !bob.Sub.CancelAtPeriodEnd {
		t.Fatalf("bob keeps enterprise to the end, starter waits: %+v", bob.Sub)
	}

	card("cat", "pro")
	p.fail = errors.New("stripe down")
	if _, err := a.Cancel(ctx, "cat"); err == nil {
		t.Fatal("cancel succeeded while the provider failed")
	}
	if cat, _ := a.Current(ctx, "cat"); cat.Sub.CancelAtPeriodEnd {
		t.Fatal("the plan says cancelled while the provider still renews")
	}
	p.fail = nil
	if _, err := a.Cancel(ctx, "cat"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Resume(ctx, "cat"); err != nil {
		t.Fatal(err)
	}
	if got := p.take(); len(got) != 2 || got[0] != "cancel_at_period_end sub_cat true" || got[1] != "cancel_at_period_end sub_cat false" {
		t.Fatalf("cancel / resume: %v", got)
	}
	if _, err := a.Resume(ctx, "cat"); apperr.KindOf(err) != apperr.FailedPrecondition || err != domain.ErrNotCancelled {
		t.Fatalf("resume twice: %v", err)
	}
}

// A card subscription the provider has ended already (cancelled there, its
// webhook not here yet): cancel succeeds and the plan records that nothing
// renews; resume is refused with the reason, not a provider outage, and is
// not offered again. A local card plan (no provider subscription) still
// cancels and resumes.
func TestCancelOrResumeWhenTheProviderEndedTheSubscription(t *testing.T) {
	pool, p, a := recordingApp(t)
	ctx := context.Background()
	p.fail = apperr.Wrap(fmt.Errorf("%w: no such subscription", domain.ErrProviderSubGone), apperr.Unavailable,
		domain.ErrNoProvider.Slug, domain.ErrNoProvider.Message)
	for _, user := range []string{"dan", "eve"} {
		exec(t, pool, `INSERT INTO subscriptions (user_id, tier, status, start_date, end_date, method, period, provider_subscription_id, cancel_at_period_end)
			VALUES ($1, 'pro', 'active', '2026-11-10', '2026-12-09', 'card', 'monthly', 'sub_'||$1, $1 = 'eve')`, user)
	}
	dan, err := a.Cancel(ctx, "dan")
	if err != nil || !dan.CancelAtPeriodEnd || dan.ProviderEndedID != "sub_dan" || dan.Tier != "pro" || dan.EndDate.Format("2006-01-02") != "2026-12-09" {
		t.Fatalf("cancel: %+v %v", dan, err)
	}
	if _, err := a.Resume(ctx, "eve"); err != domain.ErrResumeProviderEnded {
		t.Fatalf("resume: %v, want %v", err, domain.ErrResumeProviderEnded)
	}
	for _, user := range []string{"dan", "eve"} {
		plan, _ := a.Current(ctx, user)
		if !plan.Sub.CancelAtPeriodEnd || plan.Sub.ProviderEndedID != "sub_"+user || plan.Sub.ResumeRefusal() != domain.ErrResumeProviderEnded {
			t.Fatalf("%s: %+v", user, plan.Sub)
		}
	}
	// Asked again, resume answers the reason without asking the provider.
	p.fail = errors.New("the provider must not be asked")
	if _, err := a.Resume(ctx, "dan"); err != domain.ErrResumeProviderEnded {
		t.Fatalf("resume again: %v", err)
	}
	exec(t, pool, `INSERT INTO subscriptions (user_id, tier, status, start_date, end_date, method, period)
		VALUES ('fay', 'pro', 'active', '2026-11-10', '2026-12-09', 'card', 'monthly')`)
	if _, err := a.Cancel(ctx, "fay"); err != nil {
		t.Fatal(err)
	}
	if fay, err := a.Resume(ctx, "fay"); err != nil || fay.CancelAtPeriodEnd {
		t.Fatalf("local card resume: %+v %v", fay, err)
	}
}

// A new card subscription recorded while the provider is told to stop the
// old one (a checkout paid at that moment): the plan is not marked
// cancelled for a subscription the provider was not told about.
func TestCancelWhileThePlanChanges(t *testing.T) {
	pool, p, a := recordingApp(t)
	ctx := context.Background()
	exec(t, pool, `INSERT INTO subscriptions (user_id, tier, status, start_date, end_date, method, period, provider_subscription_id)
		VALUES ('gus', 'pro', 'active', '2026-11-10', '2026-12-09', 'card', 'monthly', 'sub_old')`)
	p.during = func() {
		exec(t, pool, `UPDATE subscriptions SET provider_subscription_id = 'sub_new' WHERE user_id = 'gus'`)
	}
	if _, err := a.Cancel(ctx, "gus"); err != domain.ErrPlanChanged {
		t.Fatalf("cancel: %v, want %v", err, domain.ErrPlanChanged)
	}
	if gus, _ := a.Current(ctx, "gus"); gus.Sub.CancelAtPeriodEnd || gus.Sub.ProviderSubscriptionID != "sub_new" {
		t.Fatalf("gus: %+v", gus.Sub)
	}
}
