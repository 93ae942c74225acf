package stack_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestTaxInvoiceREST: over REST as a browser calls it — a billing profile
// with a bidirectional override or a control character is a 400 with a Thai
// detail; a checkout names the buyer its tax invoice is made out to; a
// plain receipt is reissued once as a replacement tax invoice (a second
// reissue is 409 with a detail); two completions of one local checkout at
// once make one payment; starting checkouts is limited per account (429
// with Retry-After).
func TestTaxInvoiceREST(t *testing.T) {
	e := startStack(t, map[string]string{"CHECKOUT_PER_MINUTE": "5"})
	a := bearer(e.registerVerified("ann", "ann@example.com", "long enough pass").str("access_token"))

	company := map[string]any{"kind": "company", "name": "บริษัท รับเหมา ทดสอบ จำกัด", "tax_id": "0105551234567",
		"head_office": false, "branch": "00012", "address": "99/1 ถนนสีลม แขวงสุริยวงศ์\nเขตบางรัก กรุงเทพมหานคร 10500"}
	for name, edit := range map[string]func(map[string]any){
		"override in the name":  func(p map[string]any) { p["name"] = "บริษัท \u202eดำกัจ" },
		"isolate in the name":   func(p map[string]any) { p["name"] = "ABC \u2067Co\u2069" },
		"escape in the address": func(p map[string]any) { p["address"] = "99 \u001b[2Jถนนสีลม" },
		"C1 in the address":     func(p map[string]any) { p["address"] = "99 \u0085ถนนสีลม" },
	} {
		p := map[string]any{}
		for k, v := range company {
			p[k] = v
		}
		edit(p)
		if r := e.call("PUT", "/users/me/billing-profile", p, a...); r.Status != 400 || !strings.Contains(r.detail(), "อักขระ") {
			t.Fatalf("billing profile, %s: %d %s", name, r.Status, r.Raw)
		}
		body := map[string]any{"tier": "pro", "period": "monthly", "method": "card", "buyer": p}
		if r := e.call("POST", "/payment/checkout", body, a...); r.Status != 400 || !strings.Contains(r.detail(), "อักขระ") {
			t.Fatalf("checkout with a buyer, %s: %d %s", name, r.Status, r.Raw)
		}
	}

	pay := func(body map[string]any) string {
		t.Helper()
		co := e.call("POST", "/payment/checkout", body, a...)
		expect(t, co, 200, "checkout")
		expect(t, e.call("POST", "/payment/local/"+co.str("session_id")+"/complete", map[string]any{"outcome": "paid"}, a...), 200, "pay")
		pays := e.call("GET", "/users/me/payments", nil, a...)
		return pays.Body["payments"].([]any)[0].(map[string]any)["receipt_number"].(string)
	}
	receipt := func(number string) map[string]any {
		t.Helper()
		r := e.call("GET", "/users/me/receipts/"+number, nil, a...)
		expect(t, r, 200, "receipt "+number)
		return r.Body["receipt"].(map[string]any)
	}
	// The buyer given at checkout.
	invoice := receipt(pay(map[string]any{"tier": "starter", "period": "monthly", "method": "promptpay", "buyer": company}))
	if b := invoice["buyer"].(map[string]any); b["name"] != company["name"] || b["branch_label"] != "สาขาที่ 00012" || invoice["can_reissue"] == true {
		t.Fatalf("tax invoice: %v", invoice)
	}
	// A plain receipt, then its replacement tax invoice, once.
	plain := pay(map[string]any{"tier": "starter", "period": "monthly", "method": "promptpay", "receipt_only": true})
	if r := receipt(plain); r["buyer_has_profile"] == true || r["can_reissue"] != true {
		t.Fatalf("plain receipt: %v", r)
	}
	re := e.call("POST", "/users/me/receipts/"+plain+"/reissue", map[string]any{}, a...)
	expect(t, re, 200, "reissue")
	rep := re.Body["receipt"].(map[string]any)
	if rep["replaces_number"] != plain || rep["number"] == plain || rep["buyer"].(map[string]any)["tax_id"] != "0105551234567" {
		t.Fatalf("replacement: %s", re.Raw)
	}
	if r := receipt(plain); r["replaced_by_number"] != rep["number"] || r["buyer_has_profile"] == true {
		t.Fatalf("the original changed: %v", r)
	}
	expectDetail(t, e.call("POST", "/users/me/receipts/"+plain+"/reissue", map[string]any{}, a...), 409, rep["number"].(string))
	expectDetail(t, e.call("POST", "/users/me/receipts/"+rep["number"].(string)+"/reissue", map[string]any{}, a...), 409, "ฉบับแทน")
	expect(t, e.call("POST", "/users/me/receipts/RC2569-999999/reissue", map[string]any{}, a...), 404, "no such receipt")
	expect(t, e.call("POST", "/users/me/receipts/"+plain+"/reissue", map[string]any{}), 401, "signed out")

	// Two completions of one local checkout at once: one payment, the
	// other answer says it is done.
	co := e.call("POST", "/payment/checkout", map[string]any{"tier": "pro", "period": "monthly", "method": "promptpay"}, a...)
	expect(t, co, 200, "checkout")
	statuses := make([]int, 2)
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = e.call("POST", "/payment/local/"+co.str("session_id")+"/complete", map[string]any{"outcome": "paid"}, a...).Status
		}()
	}
	wg.Wait()
	if oneEach := statuses[0] == 200 && statuses[1] == 400 || statuses[0] == 400 && statuses[1] == 200; !oneEach {
		t.Fatalf("two completions at once: %v", statuses)
	}
	conn, err := pgx.Connect(context.Background(), e.db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int
	if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM subscription.payments WHERE provider_ref = $1`, co.str("session_id")).Scan(&n); err != nil || n != 1 {
		t.Fatalf("%d payments of one checkout (%v)", n, err)
	}

	// Three checkouts started in this minute, two more make five: the next
	// new one is 429 with Retry-After; a double click of the last is not.
	last := map[string]any{"tier": "enterprise", "period": "monthly", "method": "card"}
	expect(t, e.call("POST", "/payment/checkout", last, append(a, "Idempotency-Key", "k4")...), 200, "fourth")
	expect(t, e.call("POST", "/payment/checkout", last, append(a, "Idempotency-Key", "k5")...), 200, "fifth")
	expect(t, e.call("POST", "/payment/checkout", last, append(a, "Idempotency-Key", "k5")...), 200, "a double click")
	r := e.call("POST", "/payment/checkout", last, append(a, "Idempotency-Key", "k6")...)
	if r.Status != 429 || r.detail() == "" || r.Header.Get("Retry-After") == "" || r.Header.Get("Retry-After") == "0" {
		t.Fatalf("sixth checkout in a minute: %d %s %v", r.Status, r.Raw, r.Header)
	}
	if !strings.Contains(r.Raw, "checkout-rate-limited") {
		t.Fatalf("reason: %s", r.Raw)
	}
}
