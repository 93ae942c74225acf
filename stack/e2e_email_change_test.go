package stack_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestEmailChangeREST: moving an account to a new e-mail needs the current
// password and a code sent to the new address; the old address is told; an
// address another account holds gets no code and the same answer.
func TestEmailChangeREST(t *testing.T) {
	e := startStack(t, nil)
	tok := bearer(e.registerVerified("mover", "mover@example.com", "long enough pass").str("access_token"))
	e.registerVerified("holder", "holder@example.com", "long enough pass")

	expect(t, e.call("POST", "/users/me/email/send-otp", map[string]any{"new_email": "new@example.com", "current_password": "long enough pass"}), 401, "signed out")
	expectDetail(t, e.call("POST", "/users/me/email/send-otp", map[string]any{"new_email": "new@example.com"}, tok...), 400, "Current password")
	expectDetail(t, e.call("POST", "/users/me/email/send-otp", map[string]any{"new_email": "new@example.com", "current_password": "wrong"}, tok...), 400, "Current password")
	expect(t, e.call("POST", "/users/me/email/send-otp", map[string]any{"new_email": "not-an-email", "current_password": "long enough pass"}, tok...), 422, "bad address")
	expect(t, e.call("POST", "/users/me/email/send-otp", map[string]any{"new_email": "MOVER@example.com", "current_password": "long enough pass"}, tok...), 422, "same address")

	// An address in use: the same answer, no code.
	taken := e.call("POST", "/users/me/email/send-otp", map[string]any{"new_email": "holder@example.com", "current_password": "long enough pass"}, tok...)
	expect(t, taken, 200, "taken address")
	if m, err := e.mail.WaitFor("holder@example.com", 500*time.Millisecond); err == nil {
		t.Fatalf("the holder got mail: %q", m.Subject)
	}

	r := e.call("POST", "/users/me/email/send-otp", map[string]any{"new_email": " New@Example.com ", "current_password": "long enough pass"}, tok...)
	expect(t, r, 200, "send code")
	if r.str("email") != "new@example.com" {
		t.Fatalf("send code: %s", r.Raw)
	}
	code := e.code("new@example.com")
	expect(t, e.call("POST", "/users/me/email", map[string]any{"new_email": "new@example.com", "otp": "12"}, tok...), 422, "malformed code")
	expect(t, e.call("POST", "/users/me/email", map[string]any{"new_email": "other@example.com", "otp": code}, tok...), 400, "code for another address")
	done := e.call("POST", "/users/me/email", map[string]any{"new_email": "new@example.com", "otp": code}, tok...)
	expect(t, done, 200, "confirm")
	if u, _ := done.Body["user"].(map[string]any); u["email"] != "new@example.com" {
		t.Fatalf("confirm: %s", done.Raw)
	}
	if m, err := e.mail.WaitFor("mover@example.com", 15*time.Second); err != nil || !strings.Contains(m.Text, "new@example.com") {
		t.Fatalf("old address not told: %v %+v", err, m)
	}
	expect(t, e.call("POST", "/users/me/email", map[string]any{"new_email": "new@example.com", "otp": code}, bearer(done.str("access_token"))...), 400, "code reused")
	// The new address signs in; the old one does not.
	e.login("new@example.com", "long enough pass")
	expect(t, e.call("POST", "/login", map[string]string{"username": "mover@example.com", "password": "long enough pass"}), 401, "old address")
}

// TestEmailChangeMovesBillingMail: receipts and plan reminders go to the
// address captured at checkout; once the user moves to a new one
// (auth.v1.user.email_changed) the plan and a checkout opened before the
// move follow it, so the next receipt reaches the new address; a checkout
// opened after it takes the new one.
func TestEmailChangeMovesBillingMail(t *testing.T) {
	e := startStack(t, nil)
	tok := bearer(e.registerVerified("payer", "payer@example.com", "long enough pass").str("access_token"))
	userID := e.call("GET", "/users/me", nil, tok...).str("id")
	receipt := func(to, what string) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			m, err := e.mail.WaitFor(to, time.Until(deadline))
			if err != nil {
				t.Fatalf("%s: no receipt to %s: %v", what, to, err)
			}
			if strings.Contains(m.Subject, "ใบเสร็จรับเงิน") {
				return
			}
		}
	}
	co := e.call("POST", "/payment/checkout", map[string]any{"tier": "pro", "period": "monthly", "method": "card"}, tok...)
	expect(t, co, 200, "checkout")
	expect(t, e.call("POST", "/payment/local/"+co.str("session_id")+"/complete", map[string]any{"outcome": "paid"}, tok...), 200, "pay")
	receipt("payer@example.com", "first payment")
	upgrade := e.call("POST", "/payment/checkout", map[string]any{"tier": "enterprise", "period": "monthly", "method": "card"}, tok...)
	expect(t, upgrade, 200, "upgrade checkout")

	expect(t, e.call("POST", "/users/me/email/send-otp", map[string]any{"new_email": "payer.new@example.com", "current_password": "long enough pass"}, tok...), 200, "send code")
	moved := e.call("POST", "/users/me/email", map[string]any{"new_email": "payer.new@example.com", "otp": e.code("payer.new@example.com")}, tok...)
	expect(t, moved, 200, "confirm")
	tok = bearer(moved.str("access_token")) // the change ended the earlier session

	conn, err := pgx.Connect(context.Background(), e.db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	deadline := time.Now().Add(15 * time.Second)
	for {
		var left int
		if err := conn.QueryRow(context.Background(), `SELECT (SELECT count(*) FROM subscription.subscriptions WHERE user_id = $1 AND email <> 'payer.new@example.com')
			+ (SELECT count(*) FROM subscription.checkouts WHERE user_id = $1 AND email <> 'payer.new@example.com')`, userID).Scan(&left); err != nil {
			t.Fatal(err)
		}
		if left == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("15 s after the change, %d plan or checkout rows keep the old address", left)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// A checkout opened now records the new address.
	yearly := e.call("POST", "/payment/checkout", map[string]any{"tier": "enterprise", "period": "yearly", "method": "card"}, tok...)
	expect(t, yearly, 200, "checkout after the change")
	var recorded string
	if err := conn.QueryRow(context.Background(), `SELECT email FROM subscription.checkouts WHERE session_id = $1`, yearly.str("session_id")).Scan(&recorded); err != nil || recorded != "payer.new@example.com" {
		t.Fatalf("checkout after the change records %q (%v), want the new address", recorded, err)
	}
	expect(t, e.call("POST", "/payment/local/"+upgrade.str("session_id")+"/complete", map[string]any{"outcome": "paid"}, tok...), 200, "pay the upgrade")
	receipt("payer.new@example.com", "upgrade paid after the move")
}

// TestEmailChangeCodesToFewAddresses: one account cannot have codes mailed
// to many addresses (the form would be a way to send our mail to anyone):
// at most 5 different new addresses an hour, then 429 with Retry-After,
// addresses held by other accounts (no code sent, the same answer) counted
// alike; another account is not held back.
func TestEmailChangeCodesToFewAddresses(t *testing.T) {
	e := startStack(t, nil)
	tok := bearer(e.registerVerified("sender", "sender@example.com", "long enough pass").str("access_token"))
	other := bearer(e.registerVerified("other", "other@example.com", "long enough pass").str("access_token"))
	ask := func(to string, who []string) reply {
		return e.call("POST", "/users/me/email/send-otp", map[string]any{"new_email": to, "current_password": "long enough pass"}, who...)
	}
	for _, to := range []string{"a1@example.com", "a2@example.com", "other@example.com", "a4@example.com", "a5@example.com"} {
		expect(t, ask(to, tok), 200, "code to "+to)
	}
	r := ask("a6@example.com", tok)
	expectReason(t, r, 429, "resource_exhausted", "email-change-too-many")
	if s, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || s < 3000 || s > 3600 {
		t.Fatalf("Retry-After %q, want about an hour", r.Header.Get("Retry-After"))
	}
	if m, err := e.mail.WaitFor("a6@example.com", 500*time.Millisecond); err == nil {
		t.Fatalf("a code went to a sixth address: %q", m.Subject)
	}
	expect(t, ask("b1@example.com", other), 200, "another account's code")
}

// TestEmailChangeEndsSessionsAndMovesAdminRights: like a password change, a
// new e-mail ends every session of the account (within a second, on every
// service); the caller gets a new session whose token names the new
// address, so operator rights (ADMIN_EMAILS) follow the address at once:
// gone when an operator moves away, granted when an account moves to an
// operator's address, without waiting for a token refresh.
func TestEmailChangeEndsSessionsAndMovesAdminRights(t *testing.T) {
	e := startStack(t, map[string]string{"ADMIN_EMAILS": "@ops.bidradar.test"})
	first := e.registerVerified("boss", "boss@ops.bidradar.test", "long enough pass")
	laptop := e.login("boss", "long enough pass")
	old := first.str("access_token")
	expect(t, e.call("GET", "/admin/ingestion-runs", nil, bearer(old)...), 200, "operator before the change")
	expect(t, e.call("GET", "/admin/ingestion-runs", nil, bearer(laptop.str("access_token"))...), 200, "operator's other session")

	change := func(tok, to string) reply {
		t.Helper()
		expect(t, e.call("POST", "/users/me/email/send-otp", map[string]any{"new_email": to, "current_password": "long enough pass"}, bearer(tok)...), 200, "code to "+to)
		r := e.call("POST", "/users/me/email", map[string]any{"new_email": to, "otp": e.code(to)}, bearer(tok)...)
		expect(t, r, 200, "confirm "+to)
		if r.str("access_token") == "" || r.str("access_token") == tok || r.str("refresh_token") == "" || r.str("token_type") != "bearer" {
			t.Fatalf("no new session: %s", r.Raw)
		}
		checkCookies(t, r)
		return r
	}
	moved := change(old, "boss@example.com")
	fresh := moved.str("access_token")
	deadline := time.Now().Add(time.Second)
	for {
		got := map[string]int{
			"admin, the changing session":    e.call("GET", "/admin/ingestion-runs", nil, bearer(old)...).Status,
			"admin, the other session":       e.call("GET", "/admin/ingestion-runs", nil, bearer(laptop.str("access_token"))...).Status,
			"interests, the other session":   e.call("GET", "/userInterests/active", nil, bearer(laptop.str("access_token"))...).Status,
			"users/me, the changing session": e.call("GET", "/users/me", nil, bearer(old)...).Status,
		}
		ended := true
		for _, st := range got {
			ended = ended && st == 401
		}
		if ended {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("1 s after the change, earlier tokens still answer: %v", got)
		}
		time.Sleep(50 * time.Millisecond)
	}
	expect(t, e.call("POST", "/refresh-token", map[string]string{"refresh_token": laptop.str("refresh_token")}), 401, "the other session's refresh token")
	expect(t, e.call("POST", "/refresh-token", map[string]string{"refresh_token": first.str("refresh_token")}), 401, "the changing session's old refresh token")
	expectReason(t, e.call("GET", "/admin/ingestion-runs", nil, bearer(fresh)...), 403, "permission_denied", "admin-only")
	if me := e.call("GET", "/users/me", nil, bearer(fresh)...); me.Status != 200 || me.str("email") != "boss@example.com" {
		t.Fatalf("the new session: %d %s", me.Status, me.Raw)
	}
	if list := e.call("GET", "/users/me/sessions", nil, bearer(fresh)...).Body["sessions"].([]any); len(list) != 1 {
		t.Fatalf("sessions after the change: %v", list)
	}
	refreshed := e.call("POST", "/refresh-token", map[string]string{"refresh_token": moved.str("refresh_token")})
	expect(t, refreshed, 200, "the new session refreshes")

	// The other way: an account moving to an operator's address is an
	// operator with the token the change hands back.
	pleb := e.registerVerified("pleb", "pleb@example.com", "long enough pass").str("access_token")
	expectReason(t, e.call("GET", "/admin/ingestion-runs", nil, bearer(pleb)...), 403, "permission_denied", "admin-only")
	promoted := change(pleb, "pleb@ops.bidradar.test").str("access_token")
	expect(t, e.call("GET", "/admin/ingestion-runs", nil, bearer(promoted)...), 200, "an operator at once")
}
