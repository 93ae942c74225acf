package ports_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stripe/stripe-go/v82/webhook"

	subscriptionv1 "bidradar/gen/subscription/v1"
	"bidradar/pkg/apperr"
	"bidradar/pkg/authn"
	"bidradar/pkg/testutil/pgtest"
	"bidradar/pkg/testutil/stripemock"
	"bidradar/services/subscription/internal/adapters/localpay"
	"bidradar/services/subscription/internal/adapters/postgres"
	"bidradar/services/subscription/internal/adapters/stripepay"
	"bidradar/services/subscription/internal/app"
	"bidradar/services/subscription/internal/domain"
	"bidradar/services/subscription/internal/ports"
	"bidradar/services/subscription/subscriptionsvc"
)

const (
	secret = "whsec_test_secret"
	ann    = "11111111-1111-4111-8111-111111111111"
	bob    = "22222222-2222-4222-8222-222222222222"
)

var clock = time.Date(2026, 11, 25, 3, 0, 0, 0, time.UTC) // 10:00 in Bangkok

func paymentsHandler(t *testing.T, p domain.Provider) (*ports.Handler, *pgxpool.Pool) {
	t.Helper()
	pool, err := subscriptionsvc.Open(context.Background(), pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return ports.NewHandler(app.New(postgres.New(pool), p, func() time.Time { return clock }, nil)), pool
}

func user(id string) context.Context {
	return authn.WithClaims(context.Background(), authn.Claims{UserID: id, Email: id[:4] + "@example.com"})
}

func kindOf(err error) apperr.Kind {
	if err == nil {
		return -1
	}
	return apperr.KindOf(err)
}

func TestCheckoutAgainstStripeMock(t *testing.T) {
	h, pool := paymentsHandler(t, stripepay.New("sk_test_123", secret, stripemock.Start(t), "https://app.example"))
	for _, m := range []string{"card", "promptpay"} {
		for _, period := range []string{"monthly", "yearly"} {
			req := connect.NewRequest(&subscriptionv1.CreateCheckoutRequest{Tier: "pro", Period: period, Method: m})
			req.Header().Set("Idempotency-Key", "click-"+m+period)
			r1, err := h.CreateCheckout(user(ann), req)
			if err != nil {
				t.Fatalf("%s %s: %v", m, period, err)
			}
			if !strings.HasPrefix(r1.Msg.GetSessionId(), "cs_") || r1.Msg.GetCheckoutUrl() == "" {
				t.Fatalf("session %+v", r1.Msg)
			}
			// A double click (same key): the same session, nothing new stored.
			r2, err := h.CreateCheckout(user(ann), req)
			if err != nil || r2.Msg.GetSessionId() != r1.Msg.GetSessionId() {
				t.Fatalf("double click: %v %v", r2, err)
			}
		}
	}
	var n int
	var yearly int64
	_ = pool.QueryRow(context.Background(), `SELECT count(*), max(amount_satang) FROM checkouts`).Scan(&n, &yearly)
	if n != 4 || yearly != 1490000 { // a yearly plan costs 10 months
		t.Fatalf("%d checkouts, max %d satang", n, yearly)
	}
	for _, bad := range []*subscriptionv1.CreateCheckoutRequest{
		{Tier: "free", Period: "monthly", Method: "card"}, {Tier: "gold", Period: "monthly", Method: "card"},
		{Tier: "pro", Period: "weekly", Method: "card"}, {Tier: "pro", Period: "monthly", Method: "cash"},
	} {
		if _, err := h.CreateCheckout(user(ann), connect.NewRequest(bad)); kindOf(err) != apperr.InvalidArgument {
			t.Fatalf("%+v: %v", bad, err)
		}
	}
}

// event builds a Stripe event of type typ whose data.object is obj.
func event(id, typ string, created time.Time, obj map[string]any) []byte {
	b, _ := json.Marshal(map[string]any{"id": id, "object": "event", "type": typ, "created": created.Unix(),
		"api_version": "2025-01-01", "data": map[string]any{"object": obj}})
	return b
}

func sign(payload []byte, at time.Time, key string) string {
	return webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: payload, Secret: key, Timestamp: at}).Header
}

func session(sub string) map[string]any {
	return map[string]any{"id": "cs_test_1", "object": "checkout.session", "client_reference_id": ann, "payment_status": "paid",
		"amount_total": 149000, "mode": "subscription", "subscription": sub,
		"metadata": map[string]string{"tier": "pro", "period": "monthly", "method": "card", "user_id": ann}}
}

func TestWebhookSignatureReplayAndOrder(t *testing.T) {
	h, pool := paymentsHandler(t, stripepay.New("sk_test_123", secret, "http://127.0.0.1:1", "https://app.example"))
	ctx := context.Background()
	post := func(payload []byte, sig string) error {
		_, err := h.HandleProviderEvent(ctx, connect.NewRequest(&subscriptionv1.HandleProviderEventRequest{Payload: payload, Signature: sig}))
		return err
	}
	tier := func(u string) string {
		r, err := h.GetMySubscription(user(u), connect.NewRequest(&subscriptionv1.GetMySubscriptionRequest{}))
		if err != nil {
			t.Fatal(err)
		}
		return r.Msg.GetTier()
	}
	count := func(q string) int {
		var n int
		if err := pool.QueryRow(ctx, q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	done := event("evt_1", "checkout.session.completed", time.Now(), session("sub_1"))

	// Bad, foreign and stale signatures change nothing.
	for name, sig := range map[string]string{
		"garbage":    "t=1,v1=deadbeef",
		"other key":  sign(done, time.Now(), "whsec_other"),
		"stale":      sign(done, time.Now().Add(-301*time.Second), secret),
		"future":     sign(done, time.Now().Add(301*time.Second), secret),
		"far future": sign(done, time.Now().Add(24*time.Hour), secret),
		"no header":  "",
		"tampered":   sign([]byte(strings.Replace(string(done), "149000", "1", 1)), time.Now(), secret),
	} {
		payload := done
		if name == "tampered" {
			payload = []byte(strings.Replace(string(done), "pro", "enterprise", 1))
			sig = sign(done, time.Now(), secret)
		}
		if err := post(payload, sig); kindOf(err) != apperr.InvalidArgument {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if tier(ann) != "free" || count(`SELECT count(*) FROM provider_events`) != 0 {
		t.Fatal("a bad signature changed something")
	}

	// The signed event grants pro; a replay changes nothing.
	for range 3 {
		if err := post(done, sign(done, time.Now(), secret)); err != nil {
			t.Fatal(err)
		}
	}
	if tier(ann) != "pro" || count(`SELECT count(*) FROM payments WHERE status = 'succeeded'`) != 1 ||
		count(`SELECT count(*) FROM outbox WHERE subject = 'subscription.v1.payment.succeeded'`) != 1 {
		t.Fatal("first delivery or replay wrong")
	}

	// Bob: his subscription's deletion arrives before its completed checkout.
	bobSession := session("sub_2")
	bobSession["id"], bobSession["client_reference_id"] = "cs_test_2", bob
	bobSession["metadata"].(map[string]string)["user_id"] = bob
	deleted := event("evt_3", "customer.subscription.deleted", time.Now(), map[string]any{"id": "sub_2", "object": "subscription",
		"status": "canceled", "metadata": map[string]string{"user_id": bob, "tier": "pro", "period": "monthly"}})
	late := event("evt_2", "checkout.session.completed", time.Now().Add(-time.Minute), bobSession)
	if err := post(deleted, sign(deleted, time.Now(), secret)); err != nil {
		t.Fatal(err)
	}
	if err := post(late, sign(late, time.Now(), secret)); err != nil {
		t.Fatal(err)
	}
	if tier(bob) != "free" {
		t.Fatal("a completed checkout after its subscription's deletion granted a tier")
	}

	// An event type we do not handle is acknowledged.
	other := event("evt_9", "customer.created", time.Now(), map[string]any{"id": "cus_1"})
	if err := post(other, sign(other, time.Now(), secret)); err != nil {
		t.Fatal(err)
	}
}

func TestLocalProviderCompletesThroughFulfilment(t *testing.T) {
	h, _ := paymentsHandler(t, localpay.Provider{})
	r, err := h.CreateCheckout(user(ann), connect.NewRequest(&subscriptionv1.CreateCheckoutRequest{Tier: "starter", Period: "yearly", Method: "promptpay"}))
	if err != nil {
		t.Fatal(err)
	}
	id := r.Msg.GetSessionId()
	if r.Msg.GetCheckoutUrl() != "/payment/local/"+id {
		t.Fatalf("url %q", r.Msg.GetCheckoutUrl())
	}
	if _, err := h.GetLocalCheckout(user(bob), connect.NewRequest(&subscriptionv1.GetLocalCheckoutRequest{SessionId: id})); kindOf(err) != apperr.NotFound {
		t.Fatalf("bob sees ann's checkout: %v", err)
	}
	complete := func(u, outcome string) (*connect.Response[subscriptionv1.CompleteLocalCheckoutResponse], error) {
		return h.CompleteLocalCheckout(user(u), connect.NewRequest(&subscriptionv1.CompleteLocalCheckoutRequest{SessionId: id, Outcome: outcome}))
	}
	if _, err := complete(ann, "maybe"); kindOf(err) != apperr.InvalidArgument {
		t.Fatalf("bad outcome: %v", err)
	}
	if _, err := complete(bob, "paid"); kindOf(err) != apperr.NotFound {
		t.Fatalf("bob pays ann's: %v", err)
	}
	got, err := complete(ann, "paid")
	if err != nil || got.Msg.GetCheckout().GetStatus() != "paid" {
		t.Fatalf("pay: %v %v", got, err)
	}
	if _, err := complete(ann, "paid"); kindOf(err) != apperr.FailedPrecondition {
		t.Fatalf("paid twice: %v", err)
	}
	sub, err := h.GetMySubscription(user(ann), connect.NewRequest(&subscriptionv1.GetMySubscriptionRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	s := sub.Msg
	if s.GetTier() != "starter" || s.GetSubscription().GetEndDate() != "2027-11-24" || s.GetDaysRemaining() != 365 ||
		s.GetSubscription().GetLastPaymentAmount() != 4900 {
		t.Fatalf("subscription %+v", s)
	}
	pays, err := h.ListPayments(user(ann), connect.NewRequest(&subscriptionv1.ListPaymentsRequest{}))
	if err != nil || len(pays.Msg.GetPayments()) != 1 || pays.Msg.GetPayments()[0].GetReceiptNo() != 1 {
		t.Fatalf("payments %v %v", pays, err)
	}
}

func TestCancelAndResume(t *testing.T) {
	h, pool := paymentsHandler(t, stripepay.New("sk_test_123", secret, stripemock.Start(t), "https://app.example"))
	ctx := context.Background()
	if _, err := pool.Exec(ctx, `INSERT INTO subscriptions (user_id, tier, status, start_date, end_date, method, period, provider_subscription_id) VALUES
		($1, 'pro', 'active', '2026-11-10', '2026-12-09', 'card', 'monthly', 'sub_123'),
		($2, 'pro', 'active', '2026-11-10', '2026-12-09', 'promptpay', 'monthly', NULL)`, ann, bob); err != nil {
		t.Fatal(err)
	}
	mine := func(u string) *subscriptionv1.SubscriptionPeriod {
		r, err := h.GetMySubscription(user(u), connect.NewRequest(&subscriptionv1.GetMySubscriptionRequest{}))
		if err != nil {
			t.Fatal(err)
		}
		return r.Msg.GetSubscription()
	}
	if p := mine(ann); !p.GetAutoRenew() || p.GetCancelAtPeriodEnd() || p.GetMethod() != "card" {
		t.Fatalf("before: %v", p)
	}
	r, err := h.CancelSubscription(user(ann), connect.NewRequest(&subscriptionv1.CancelSubscriptionRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Msg.GetMessage(), "9 ธันวาคม 2569") || !r.Msg.GetSubscription().GetCancelAtPeriodEnd() {
		t.Fatalf("cancel: %v", r.Msg)
	}
	if p := mine(ann); p.GetAutoRenew() || !p.GetCancelAtPeriodEnd() || p.GetStatus() != "active" || p.GetEndDate() != "2026-12-09" {
		t.Fatalf("after cancel: %v", p)
	}
	if _, err := h.CancelSubscription(user(ann), connect.NewRequest(&subscriptionv1.CancelSubscriptionRequest{})); kindOf(err) != apperr.FailedPrecondition {
		t.Fatalf("cancel twice: %v", err)
	}
	if _, err := h.ResumeSubscription(user(ann), connect.NewRequest(&subscriptionv1.ResumeSubscriptionRequest{})); err != nil {
		t.Fatal(err)
	}
	if p := mine(ann); !p.GetAutoRenew() || p.GetCancelAtPeriodEnd() {
		t.Fatalf("after resume: %v", p)
	}
	// A pass never renews: nothing to cancel; nobody without a plan either.
	if _, err := h.CancelSubscription(user(bob), connect.NewRequest(&subscriptionv1.CancelSubscriptionRequest{})); kindOf(err) != apperr.FailedPrecondition {
		t.Fatalf("cancel a pass: %v", err)
	}
	if _, err := h.CancelSubscription(user("33333333-3333-4333-8333-333333333333"), connect.NewRequest(&subscriptionv1.CancelSubscriptionRequest{})); kindOf(err) != apperr.FailedPrecondition {
		t.Fatalf("cancel without a plan: %v", err)
	}
	if _, err := h.CancelSubscription(context.Background(), connect.NewRequest(&subscriptionv1.CancelSubscriptionRequest{})); kindOf(err) != apperr.Unauthenticated {
		t.Fatalf("cancel signed out: %v", err)
	}
}

// A downgrade bought during a paid plan waits for its end; the answer says so.
func TestDowngradeWaitsAndCheckoutRefusesAnother(t *testing.T) {
	h, pool := paymentsHandler(t, localpay.Provider{})
	ctx := context.Background()
	if _, err := pool.Exec(ctx, `INSERT INTO subscriptions (user_id, tier, status, start_date, end_date, method, period) VALUES
		($1, 'pro', 'active', '2026-11-10', '2026-12-09', 'promptpay', 'monthly')`, ann); err != nil {
		t.Fatal(err)
	}
	co, err := h.CreateCheckout(user(ann), connect.NewRequest(&subscriptionv1.CreateCheckoutRequest{Tier: "starter", Period: "monthly", Method: "promptpay"}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.CompleteLocalCheckout(user(ann), connect.NewRequest(&subscriptionv1.CompleteLocalCheckoutRequest{SessionId: co.Msg.GetSessionId(), Outcome: "paid"})); err != nil {
		t.Fatal(err)
	}
	r, err := h.GetMySubscription(user(ann), connect.NewRequest(&subscriptionv1.GetMySubscriptionRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	p := r.Msg.GetSubscription()
	if r.Msg.GetTier() != "pro" || p.GetEndDate() != "2026-12-09" || p.GetNext().GetTier() != "starter" ||
		p.GetNext().GetStartDate() != "2026-12-10" || p.GetNext().GetEndDate() != "2027-01-08" || p.GetLastPaymentAmountSatang() != 49000 {
		t.Fatalf("downgrade: %v", r.Msg)
	}
	_, err = h.CreateCheckout(user(ann), connect.NewRequest(&subscriptionv1.CreateCheckoutRequest{Tier: "enterprise", Period: "monthly", Method: "card"}))
	if kindOf(err) != apperr.FailedPrecondition {
		t.Fatalf("second change while one waits: %v", err)
	}
}
