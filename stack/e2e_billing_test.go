package stack_test

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestBillingProfileAndReceipts: over REST as a browser calls it — the
// subscription answer's fields (docs/product.md#subscription), the billing profile (a bad tax id is
// a 400 with a Thai detail), a local-provider payment issuing a numbered
// receipt with VAT and the total in Thai words, e-mailed to the payer and
// readable by nobody else; cancel and resume of the plan's renewal.
func TestBillingProfileAndReceipts(t *testing.T) {
	e := startStack(t, nil)
	a := bearer(e.registerVerified("ann", "ann@example.com", "long enough pass").str("access_token"))
	b := bearer(e.registerVerified("bob", "bob@example.com", "long enough pass").str("access_token"))

	free := e.call("GET", "/users/me/subscription", nil, a...)
	expect(t, free, 200, "subscription")
	for _, k := range []string{"tier", "price", "is_active", "days_remaining", "combination_limits", "features",
		"button_status_examples", "upgrade_recommendations", "subscription"} {
		if _, ok := free.Body[k]; !ok {
			t.Fatalf("GET /users/me/subscription lacks %q: %s", k, free.Raw)
		}
	}

	expect(t, e.call("GET", "/users/me/billing-profile", nil), 401, "profile signed out")
	if p := e.call("GET", "/users/me/billing-profile", nil, a...); p.Status != 200 || p.Body["exists"] != false {
		t.Fatalf("empty profile: %s", p.Raw)
	}
	profile := map[string]any{"kind": "company", "name": "บริษัท ทดสอบ จำกัด", "tax_id": "0105551234568",
		"head_office": false, "branch": "00012", "address": "99 ถนนสีลม กรุงเทพมหานคร 10500"}
	expectDetail(t, e.call("PUT", "/users/me/billing-profile", profile, a...), 400, "เลขประจำตัวผู้เสียภาษี")
	profile["tax_id"] = "12345"
	expectDetail(t, e.call("PUT", "/users/me/billing-profile", profile, a...), 400, "13 หลัก")
	profile["tax_id"], profile["branch"] = "0-1055-51234-56-7", "12"
	expectDetail(t, e.call("PUT", "/users/me/billing-profile", profile, a...), 400, "สาขา")
	profile["branch"] = "00012"
	expectDetail(t, e.call("PUT", "/users/me/billing-profile", `{"kind": 5}`, a...), 400, "")
	saved := e.call("PUT", "/users/me/billing-profile", profile, a...)
	expect(t, saved, 200, "save profile")
	if p := saved.Body["profile"].(map[string]any); p["tax_id"] != "0105551234567" {
		t.Fatalf("tax id not normalised: %s", saved.Raw)
	}

	co := e.call("POST", "/payment/checkout", map[string]any{"tier": "pro", "period": "monthly", "method": "card"}, a...)
	expect(t, co, 200, "checkout")
	expect(t, e.call("POST", "/payment/local/"+co.str("session_id")+"/complete", map[string]any{"outcome": "paid"}, a...), 200, "pay")

	pays := e.call("GET", "/users/me/payments", nil, a...)
	list, _ := pays.Body["payments"].([]any)
	if len(list) != 1 {
		t.Fatalf("payments: %s", pays.Raw)
	}
	number, _ := list[0].(map[string]any)["receipt_number"].(string)
	if !regexp.MustCompile(`^RC25\d\d-000001$`).MatchString(number) {
		t.Fatalf("receipt number %q", number)
	}
	rc := e.call("GET", "/users/me/receipts/"+number, nil, a...)
	expect(t, rc, 200, "receipt")
	r := rc.Body["receipt"].(map[string]any)
	buyer, seller := r["buyer"].(map[string]any), r["seller"].(map[string]any)
	if r["number"] != number || r["amount"] != 1490.0 || r["vat"] != 97.48 || r["base"] != 1392.52 || r["vat_rate_percent"] != 7.0 ||
		r["amount_words"] != "หนึ่งพันสี่ร้อยเก้าสิบบาทถ้วน" || r["amount_satang"] != "149000" ||
		buyer["name"] != "บริษัท ทดสอบ จำกัด" || buyer["branch_label"] != "สาขาที่ 00012" || buyer["email"] != "ann@example.com" ||
		seller["tax_id"] == "" || seller["branch_label"] != "สำนักงานใหญ่" {
		t.Fatalf("receipt: %s", rc.Raw)
	}
	expect(t, e.call("GET", "/users/me/receipts/"+number, nil, b...), 404, "bob reads ann's receipt")
	expect(t, e.call("GET", "/users/me/receipts/"+number, nil), 401, "a stranger reads ann's receipt")
	expect(t, e.call("GET", "/users/me/receipts/RC2569-999999", nil, a...), 404, "no such receipt")
	expect(t, e.call("GET", "/users/me/receipts/"+strings.Repeat("9", 100), nil, a...), 404, "long number")

	// The same document by e-mail, in Thai.
	deadline := time.Now().Add(20 * time.Second)
	for {
		m, err := e.mail.WaitFor("ann@example.com", time.Until(deadline))
		if err != nil {
			t.Fatalf("no receipt e-mail: %v", err)
		}
		if !strings.Contains(m.Subject, number) {
			continue
		}
		for _, want := range []string{"ใบเสร็จรับเงิน / ใบกำกับภาษี", "หนึ่งพันสี่ร้อยเก้าสิบบาทถ้วน", "97.48", "บริษัท ทดสอบ จำกัด", "/receipt/" + number} {
			if !strings.Contains(m.Text, want) {
				t.Fatalf("receipt mail lacks %q:\n%s", want, m.Text)
			}
		}
		break
	}

	// The plan after paying (docs/product.md#subscription names); then cancel and resume renewal.
	sub := e.call("GET", "/users/me/subscription", nil, a...)
	s := sub.Body["subscription"].(map[string]any)
	if sub.Body["days_remaining"] != 30.0 || s["status"] != "active" || s["start_date"] == "" || s["end_date"] == "" ||
		s["last_payment_date"] == "" || s["last_payment_amount"] != 1490.0 || sub.Body["tier"] != "pro" {
		t.Fatalf("subscription: %s", sub.Raw)
	}
	if recs, _ := sub.Body["upgrade_recommendations"].([]any); len(recs) != 1 {
		t.Fatalf("upgrade_recommendations for pro: %s", sub.Raw)
	}
	if bs, _ := sub.Body["button_status_examples"].(map[string]any); bs["explore_live_search"] != "enabled" {
		t.Fatalf("button_status_examples: %s", sub.Raw)
	}
	cancel := e.call("POST", "/users/me/subscription/cancel", map[string]any{}, a...)
	expect(t, cancel, 200, "cancel")
	if c := cancel.Body["subscription"].(map[string]any); c["cancel_at_period_end"] != true || !strings.Contains(cancel.str("message"), "ใช้งานได้ถึงวันที่") {
		t.Fatalf("cancel: %s", cancel.Raw)
	}
	expectDetail(t, e.call("POST", "/users/me/subscription/cancel", map[string]any{}, a...), 400, "ยกเลิก")
	expect(t, e.call("POST", "/users/me/subscription/resume", map[string]any{}, a...), 200, "resume")
	expectDetail(t, e.call("POST", "/users/me/subscription/resume", map[string]any{}, a...), 400, "ไม่ได้ถูกยกเลิก")
	expectDetail(t, e.call("POST", "/users/me/subscription/cancel", map[string]any{}, b...), 400, "ไม่มีแพ็กเกจ")
}
