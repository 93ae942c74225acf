package stack_test

import (
	"strings"
	"testing"
	"time"
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
	expect(t, e.call("POST", "/users/me/email", map[string]any{"new_email": "new@example.com", "otp": code}, tok...), 400, "code reused")
	// The new address signs in; the old one does not.
	e.login("new@example.com", "long enough pass")
	expect(t, e.call("POST", "/login", map[string]string{"username": "mover@example.com", "password": "long enough pass"}), 401, "old address")
}
