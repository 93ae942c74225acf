package app_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v82/webhook"

	"bidradar/pkg/testutil/stripemock"
	"bidradar/services/subscription/internal/adapters/postgres"
	"bidradar/services/subscription/internal/adapters/stripepay"
	"bidradar/services/subscription/internal/app"
)

// stripeRecorder is stripe-mock (Stripe's own OpenAPI mock, which checks
// each call as Stripe's API defines it) behind a proxy that records the
// calls, and answers 503 for the subscriptions in down (Stripe failing).
type stripeRecorder struct {
	mu    sync.Mutex
	calls []string
	down  map[string]bool
}

func startStripe(t *testing.T) (*stripeRecorder, string) {
	t.Helper()
	target, err := url.Parse(stripemock.Start(t))
	if err != nil {
		t.Fatal(err)
	}
	rec := &stripeRecorder{down: map[string]bool{}}
	proxy := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.mu.Lock()
		rec.calls = append(rec.calls, r.Method+" "+r.URL.Path)
		down := rec.down[strings.TrimPrefix(r.URL.Path, "/v1/subscriptions/")]
		rec.mu.Unlock()
		if down {
			w.Header().Set("Stripe-Should-Retry", "false")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`{"error":{"type":"api_error","message":"try again"}}`))
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return rec, srv.URL
}

func (s *stripeRecorder) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.calls
	s.calls = nil
	return out
}

func (s *stripeRecorder) setDown(id string, down bool) {
	s.mu.Lock()
	s.down[id] = down
	s.mu.Unlock()
}

// Deleting an account with a card plan cancels it at Stripe before the
// personal data goes: the plan's subscription and that of a lower plan
// waiting after it, both at once (not at the period's end), and the plan
// ends today. Stripe failing does not hold the deletion up: the cancel is
// queued and the queue's worker makes it when Stripe answers again. A checkout paid
// after the deletion grants nothing and its new card subscription is
// cancelled too.
func TestDeletionCancelsCardPlansAtStripe(t *testing.T) {
	const whsec = "whsec_deletion"
	pool := open(t)
	ctx := context.Background()
	stripe, base := startStripe(t)
	c := &clock{t: bangkok(2026, 11, 25, 10)}
	a := app.New(postgres.New(pool), stripepay.New("sk_test_deletion", whsec, base, "https://bidradar.example").WithClock(c.now), c.now, nil)

	// ann: pro by card until 9 December, starter by card booked after it
	// (a downgrade: the pro card stops at its period's end).
	exec(t, pool, `INSERT INTO subscriptions (user_id, tier, status, start_date, end_date, method, period, provider_subscription_id,
		cancel_at_period_end, email, next_tier, next_period, next_method, next_provider_subscription_id, next_end_date)
		VALUES ('ann', 'pro', 'active', '2026-11-10', '2026-12-09', 'card', 'monthly', 'sub_ann_pro', true, 'ann@example.com',
		'starter', 'monthly', 'card', 'sub_ann_starter', '2027-01-08')`)
	exec(t, pool, `INSERT INTO provider_subscriptions (subscription_id, user_id, status, cancel_at_period_end, state_at) VALUES
		('sub_ann_pro', 'ann', 'active', true, now()), ('sub_ann_starter', 'ann', 'active', false, now())`)
	exec(t, pool, `INSERT INTO billing_profiles (user_id, kind, name, tax_id, branch, address, updated_at)
		VALUES ('ann', 'person', 'แอน', '0105551234567', '', 'กรุงเทพฯ', now())`)
	if err := a.ForgetUser(ctx, "ann"); err != nil {
		t.Fatal(err)
	}
	runJobs(t, pool, a, c.now)
	calls := stripe.take()
	slices.Sort(calls) // the two run at once
	if calls := strings.Join(calls, ", "); calls != "DELETE /v1/subscriptions/sub_ann_pro, DELETE /v1/subscriptions/sub_ann_starter" {
		t.Fatalf("calls to Stripe: %s", calls)
	}
	ann, err := a.Current(ctx, "ann")
	if err != nil {
		t.Fatal(err)
	}
	if ann.Tier.Name != "free" || ann.Sub.Status != "cancelled" || ann.Sub.Next != nil || ann.Sub.EndDate.Format(time.DateOnly) != "2026-11-25" {
		t.Fatalf("ann's plan: %+v", ann.Sub)
	}
	if n := count(t, pool, `SELECT count(*) FROM queue_jobs WHERE done_at IS NOT NULL AND kind = 'subscription.cancel-now'`); n != 2 {
		t.Fatalf("%d cancels done", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM billing_profiles`); n != 0 {
		t.Fatal("the billing profile was kept")
	}
	// Delivered again: nothing more to do.
	if err := a.ForgetUser(ctx, "ann"); err != nil || runJobs(t, pool, a, c.now).Claimed != 0 || len(stripe.take()) != 0 {
		t.Fatalf("again: %v", err)
	}

	// bob: Stripe fails; the deletion goes on, the cancel waits for Stripe.
	exec(t, pool, `INSERT INTO subscriptions (user_id, tier, status, start_date, end_date, method, period, provider_subscription_id, email)
		VALUES ('bob', 'enterprise', 'active', '2026-11-20', '2026-12-19', 'card', 'monthly', 'sub_bob', 'bob@example.com')`)
	stripe.setDown("sub_bob", true)
	if err := a.ForgetUser(ctx, "bob"); err != nil {
		t.Fatalf("Stripe down held the deletion up: %v", err)
	}
	if st := runJobs(t, pool, a, c.now); st.Retried != 1 {
		t.Fatalf("the cancel while Stripe is down: %+v", st)
	}
	if n := count(t, pool, `SELECT count(*) FROM subscriptions WHERE user_id = 'bob' AND email = '' AND status = 'cancelled'`); n != 1 {
		t.Fatal("bob's data was not erased")
	}
	stripe.setDown("sub_bob", false)
	c.set(c.now().Add(2 * time.Minute))
	if st := runJobs(t, pool, a, c.now); st.Done != 1 {
		t.Fatalf("the retry: %+v", st)
	}
	if calls := stripe.take(); len(calls) != 2 || calls[1] != "DELETE /v1/subscriptions/sub_bob" {
		t.Fatalf("calls to Stripe: %v", calls)
	}
	if n := count(t, pool, `SELECT count(*) FROM queue_jobs WHERE key = 'sub_bob' AND kind = 'subscription.cancel-now' AND done_at IS NOT NULL`); n != 1 {
		t.Fatal("bob's cancel is not done")
	}

	// ann's Stripe checkout page was still open: she pays after the deletion.
	paid := []byte(`{"id":"evt_late","object":"event","type":"checkout.session.completed","created":` + strconv.FormatInt(c.now().Unix(), 10) + `,
		"data":{"object":{"id":"cs_late","object":"checkout.session","client_reference_id":"ann","payment_status":"paid",
		"amount_total":49000,"mode":"subscription","subscription":"sub_ann_late",
		"metadata":{"tier":"starter","period":"monthly","method":"card","user_id":"ann"}}}}`)
	sig := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: paid, Secret: whsec, Timestamp: c.now()}).Header
	if err := a.Webhook(ctx, paid, sig); err != nil {
		t.Fatal(err)
	}
	runJobs(t, pool, a, c.now)
	if ann, _ := a.Current(ctx, "ann"); ann.Tier.Name != "free" {
		t.Fatalf("a deleted account was granted %s", ann.Tier.Name)
	}
	if calls := stripe.take(); len(calls) != 1 || calls[0] != "DELETE /v1/subscriptions/sub_ann_late" {
		t.Fatalf("the late card subscription: %v", calls)
	}
	if n := count(t, pool, `SELECT count(*) FROM payments p JOIN receipts r ON r.payment_id = p.id WHERE p.provider_ref = 'cs_late'`); n != 1 {
		t.Fatal("the money taken has no receipt")
	}
}
