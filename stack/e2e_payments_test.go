package stack_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stripe/stripe-go/v82/webhook"

	"bidradar/pkg/testutil/stripemock"
)

// TestLocalCheckoutUpgrades: on `make run` (no Stripe keys) a user upgrades
// through the local provider's page, over the documented REST paths.
func TestLocalCheckoutUpgrades(t *testing.T) {
	e := startStack(t, nil)
	a := bearer(e.registerVerified("ann", "ann@example.com", "long enough pass").str("access_token"))
	b := bearer(e.registerVerified("bob", "bob@example.com", "long enough pass").str("access_token"))

	expect(t, e.call("POST", "/payment/checkout", map[string]any{"tier": "pro", "period": "monthly", "method": "card"}), 401, "checkout signed out")
	expectDetail(t, e.call("POST", "/payment/checkout", map[string]any{"tier": "pro", "period": "weekly", "method": "card"}, a...), 400, "period")
	co := e.call("POST", "/payment/checkout", map[string]any{"tier": "pro", "period": "monthly", "method": "card"}, append(a, "Idempotency-Key", "k1")...)
	expect(t, co, 200, "checkout")
	id := co.str("session_id")
	if co.str("checkout_url") != "/payment/local/"+id {
		t.Fatalf("checkout: %s", co.Raw)
	}
	again := e.call("POST", "/payment/checkout", map[string]any{"tier": "pro", "period": "monthly", "method": "card"}, append(a, "Idempotency-Key", "k1")...)
	if again.str("session_id") != id {
		t.Fatalf("double click made a second session: %s", again.Raw)
	}
	expect(t, e.call("GET", "/payment/local/"+id, nil, b...), 404, "bob reads ann's checkout")
	show := e.call("GET", "/payment/local/"+id, nil, a...)
	if c := show.Body["checkout"].(map[string]any); c["amount"] != float64(1490) || c["status"] != "open" || c["tier_label"] == "" {
		t.Fatalf("local checkout: %s", show.Raw)
	}
	expectDetail(t, e.call("POST", "/payment/local/"+id+"/complete", map[string]any{"outcome": "perhaps"}, a...), 400, "outcome")
	expect(t, e.call("POST", "/payment/local/"+id+"/complete", map[string]any{"outcome": "paid"}, b...), 404, "bob pays ann's")
	expect(t, e.call("POST", "/payment/local/"+id+"/complete", map[string]any{"outcome": "paid"}, a...), 200, "pay")
	expect(t, e.call("POST", "/payment/local/"+id+"/complete", map[string]any{"outcome": "paid"}, a...), 400, "pay twice")

	sub := e.call("GET", "/users/me/subscription", nil, a...)
	if sub.str("tier") != "pro" || sub.Body["days_remaining"] != float64(30) {
		t.Fatalf("after paying: %s", sub.Raw)
	}
	pays := e.call("GET", "/users/me/payments", nil, a...)
	list, _ := pays.Body["payments"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["status"] != "succeeded" || list[0].(map[string]any)["receipt_no"] == nil {
		t.Fatalf("payments: %s", pays.Raw)
	}
	// A failed payment changes no plan.
	co2 := e.call("POST", "/payment/checkout", map[string]any{"tier": "starter", "period": "yearly", "method": "promptpay"}, b...)
	expect(t, e.call("POST", "/payment/local/"+co2.str("session_id")+"/complete", map[string]any{"outcome": "failed"}, b...), 200, "fail")
	if s := e.call("GET", "/users/me/subscription", nil, b...); s.str("tier") != "free" {
		t.Fatalf("failed payment upgraded: %s", s.Raw)
	}
	// Nobody can sign for the local provider: its webhook refuses everything.
	expect(t, e.webhook(`{"id":"evt_1"}`, "t=1,v1=00"), 400, "local webhook")
}

func (e *env) webhook(body, sig string) reply {
	e.t.Helper()
	req, _ := http.NewRequest("POST", e.url+"/app/backend/api/v1/payment/webhook/stripe", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if sig != "" {
		req.Header.Set("Stripe-Signature", sig)
	}
	resp, err := e.http.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	r := reply{Status: resp.StatusCode, Raw: string(raw), Header: resp.Header}
	_ = json.Unmarshal(raw, &r.Body)
	return r
}

// TestStripeCheckoutAndWebhook: with Stripe keys (stripe-mock), checkout
// creates a Checkout Session and a webhook signed as Stripe signs grants
// the tier; hostile webhooks change nothing.
func TestStripeCheckoutAndWebhook(t *testing.T) {
	const secret = "whsec_e2e"
	e := startStack(t, map[string]string{"STRIPE_SECRET_KEY": "sk_test_e2e", "STRIPE_WEBHOOK_SECRET": secret, "STRIPE_API_BASE": stripemock.Start(t)})
	a := bearer(e.registerVerified("ann", "ann@example.com", "long enough pass").str("access_token"))
	userID := e.call("GET", "/users/me", nil, a...).str("id")
	co := e.call("POST", "/payment/checkout", map[string]any{"tier": "enterprise", "period": "yearly", "method": "card"}, a...)
	expect(t, co, 200, "stripe checkout")
	if !strings.HasPrefix(co.str("session_id"), "cs_") {
		t.Fatalf("checkout: %s", co.Raw)
	}
	obj := map[string]any{"id": co.str("session_id"), "object": "checkout.session", "client_reference_id": userID, "payment_status": "paid",
		"amount_total": 4990000, "mode": "subscription", "subscription": "sub_e2e",
		"metadata": map[string]string{"tier": "enterprise", "period": "yearly", "method": "card", "user_id": userID}}
	raw, _ := json.Marshal(map[string]any{"id": "evt_e2e_1", "object": "event", "type": "checkout.session.completed",
		"created": time.Now().Unix(), "data": map[string]any{"object": obj}})
	sign := func(at time.Time, key string) string {
		return webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: raw, Secret: key, Timestamp: at}).Header
	}
	expectDetail(t, e.webhook(string(raw), ""), 400, "Stripe-Signature")
	expectDetail(t, e.webhook(string(raw), sign(time.Now(), "whsec_wrong")), 400, "signature")
	expectDetail(t, e.webhook(string(raw), sign(time.Now().Add(-10*time.Minute), secret)), 400, "signature")
	expectDetail(t, e.webhook(string(raw), sign(time.Now().Add(10*time.Minute), secret)), 400, "signature")
	if s := e.call("GET", "/users/me/subscription", nil, a...); s.str("tier") != "free" {
		t.Fatalf("hostile webhook upgraded: %s", s.Raw)
	}
	for range 2 { // the second is a replay
		if r := e.webhook(string(raw), sign(time.Now(), secret)); r.Status != 200 || r.Body["received"] != true {
			t.Fatalf("webhook: %d %s", r.Status, r.Raw)
		}
	}
	s := e.call("GET", "/users/me/subscription", nil, a...)
	if s.str("tier") != "enterprise" || s.Body["days_remaining"] != float64(365) {
		t.Fatalf("after webhook: %s", s.Raw)
	}
	if p := e.call("GET", "/users/me/payments", nil, a...); len(p.Body["payments"].([]any)) != 1 {
		t.Fatalf("replay recorded twice: %s", p.Raw)
	}
	// The same session under another event id (Stripe sends
	// async_payment_succeeded too, or resends): nothing more.
	again, _ := json.Marshal(map[string]any{"id": "evt_e2e_2", "object": "event", "type": "checkout.session.async_payment_succeeded",
		"created": time.Now().Unix(), "data": map[string]any{"object": obj}})
	sig := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: again, Secret: secret, Timestamp: time.Now()}).Header
	expect(t, e.webhook(string(again), sig), 200, "second event of the session")
	if s2 := e.call("GET", "/users/me/subscription", nil, a...); s2.Body["days_remaining"] != float64(365) {
		t.Fatalf("one session extended twice: %s", s2.Raw)
	}

	// Deleting the account cancels the card subscription at Stripe.
	expect(t, e.call("POST", "/users/me/delete/send-otp", nil, a...), 200, "send deletion code")
	expect(t, e.call("POST", "/users/me/delete", map[string]any{"otp": e.code("ann@example.com")}, a...), 200, "delete account")
	conn, err := pgx.Connect(context.Background(), e.db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	deadline := time.Now().Add(15 * time.Second)
	for {
		var done bool
		err := conn.QueryRow(context.Background(), `SELECT done_at IS NOT NULL FROM subscription.queue_jobs
			WHERE kind = 'subscription.cancel-now' AND key = 'sub_e2e'`).Scan(&done)
		if err == nil && done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("15 s after the deletion, sub_e2e not cancelled at Stripe (%v)", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
