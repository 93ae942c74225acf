package stack_test

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"bidradar/pkg/access"

	"bidradar/stack"
)

// TestAuthJourneyREST drives the auth calls of docs/product.md#auth-calls through the gateway, as a
// customer's script would: register → code by SMTP → verify → login (with and
// without two-step) → users/me → refresh rotation → logout → forgot/reset.
func TestAuthJourneyREST(t *testing.T) {
	e := startStack(t, nil)
	const pw = "ประมูลงานรัฐ-2569"

	reg := e.call("POST", "/register", map[string]string{"username": "somchai", "email": "somchai@example.co.th", "password": pw, "name": "สมชาย ใจดี"})
	expect(t, reg, 200, "register")
	if reg.Body["expires_in"] != float64(300) {
		t.Fatalf("register expires_in = %v, want 300 (%s)", reg.Body["expires_in"], reg.Raw)
	}

	// Not verified yet: login is refused as inactive (docs/product.md#inactive-accounts).
	inactive := e.call("POST", "/login", map[string]string{"username": "somchai", "password": pw})
	expectDetail(t, inactive, 403, "inactive")
	expectReason(t, inactive, 403, "permission_denied", "account-inactive")

	code := e.code("somchai@example.co.th")
	ver := e.call("POST", "/verify-otp/?email="+url.QueryEscape("somchai@example.co.th")+"&otp="+code, nil)
	expect(t, ver, 200, "verify-otp")
	if !strings.Contains(ver.str("message"), "User verified") {
		t.Fatalf("verify message %q lacks 'User verified'", ver.str("message"))
	}
	// The code is single use.
	expect(t, e.call("POST", "/verify-otp?email=somchai@example.co.th&otp="+code, nil), 400, "reused code")

	// Login without two-step: tokens in JSON and HttpOnly cookies.
	login := e.login("somchai", pw)
	access, refresh := login.str("access_token"), login.str("refresh_token")
	if access == "" || refresh == "" || login.str("two_step_verification") == "enabled" {
		t.Fatalf("login without two-step: %s", login.Raw)
	}
	checkCookies(t, login)
	// Login by e-mail works too.
	e.login("somchai@example.co.th", pw)

	for _, p := range []string{"/users/me", "/users/me/"} {
		me := e.call("GET", p, nil, bearer(access)...)
		expect(t, me, 200, p)
		if me.str("username") != "somchai" || me.str("email") != "somchai@example.co.th" || me.str("name") != "สมชาย ใจดี" {
			t.Fatalf("%s: %s", p, me.Raw)
		}
	}
	expectDetail(t, e.call("GET", "/users/me", nil), 401, "Authentication required")
	expect(t, e.call("GET", "/users/me", nil, bearer(access+"x")...), 401, "tampered token")

	// Refresh rotates: a new pair, and the old token's family lives on in grace.
	r1 := e.call("POST", "/refresh-token", map[string]string{"refresh_token": refresh})
	expect(t, r1, 200, "refresh")
	refresh2 := r1.str("refresh_token")
	if refresh2 == "" || refresh2 == refresh || r1.str("access_token") == "" {
		t.Fatalf("refresh did not rotate: %s", r1.Raw)
	}
	// 20 concurrent refreshes with the parent token inside the grace window all succeed
	// (the spec's queued 401s, several tabs).
	var wg sync.WaitGroup
	statuses := make([]int, 20)
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = e.call("POST", "/refresh-token", map[string]string{"refresh_token": refresh}).Status
		}()
	}
	wg.Wait()
	for i, s := range statuses {
		if s != 200 {
			t.Fatalf("concurrent refresh %d within grace: status %d", i, s)
		}
	}

	// Two-step on: login e-mails a code and returns no tokens.
	expect(t, e.call("PUT", "/users/me/security/two-step", map[string]bool{"enabled": true}, bearer(access)...), 200, "two-step on")
	sec := e.call("GET", "/users/me/security", nil, bearer(access)...)
	if sec.str("two_step_verification") != "enabled" {
		t.Fatalf("security settings: %s", sec.Raw)
	}
	two := e.login("somchai", pw)
	if two.str("two_step_verification") != "enabled" || two.str("access_token") != "" {
		t.Fatalf("two-step login: %s", two.Raw)
	}
	otp := e.code("somchai@example.co.th")
	expectDetail(t, e.call("POST", "/login/verify?email=somchai@example.co.th&otp=12345", nil), 422, "valid 6-digit")
	lv := e.call("POST", "/login/verify?email=somchai@example.co.th&otp="+otp, nil)
	expect(t, lv, 200, "login/verify")
	if lv.str("message") != "Login successful." || lv.str("access_token") == "" {
		t.Fatalf("login/verify: %s", lv.Raw)
	}
	// Resend is throttled: another code within 60 s is refused with 429.
	// The wait travels as Retry-After, so clients need not read the English.
	soon := e.call("POST", "/login/resend-otp?email=somchai@example.co.th", nil)
	expectReason(t, soon, 429, "resource_exhausted", "otp-resend-too-soon")
	if n, err := strconv.Atoi(soon.Header.Get("Retry-After")); err != nil || n < 1 || n > 60 || !strings.Contains(soon.detail(), soon.Header.Get("Retry-After")+" seconds") {
		t.Fatalf("resend too soon: Retry-After %q, detail %q", soon.Header.Get("Retry-After"), soon.detail())
	}

	// Logout revokes the session's refresh family.
	out := e.call("POST", "/logout", map[string]string{"refresh_token": lv.str("refresh_token")}, bearer(lv.str("access_token"))...)
	expect(t, out, 200, "logout")
	expect(t, e.call("POST", "/refresh-token", map[string]string{"refresh_token": lv.str("refresh_token")}), 401, "refresh after logout")
	expect(t, e.call("GET", "/users/me", nil, bearer(lv.str("access_token"))...), 401, "access token after logout")
	expect(t, e.call("GET", "/users/me", nil, bearer(access)...), 200, "another session stays signed in")

	// Forgot/reset: a new password, every old session revoked.
	// Turning two-step off needs the current password.
	expectDetail(t, e.call("PUT", "/users/me/security/two-step", map[string]bool{"enabled": false}, bearer(access)...), 400, "Current password")
	expect(t, e.call("PUT", "/users/me/security/two-step", map[string]any{"enabled": false, "current_password": pw}, bearer(access)...), 200, "two-step off")
	expect(t, e.call("POST", "/users/forgot-password", map[string]string{"email": "somchai@example.co.th"}), 200, "forgot")
	resetCode := e.code("somchai@example.co.th")
	expect(t, e.call("POST", "/users/reset-password", map[string]string{"email": "somchai@example.co.th", "otp": resetCode, "newPassword": "รหัสใหม่-ปลอดภัย-99"}), 200, "reset")
	expect(t, e.call("POST", "/refresh-token", map[string]string{"refresh_token": refresh2}), 401, "old session after reset")
	expect(t, e.call("POST", "/login", map[string]string{"username": "somchai", "password": pw}), 401, "old password")
	e.login("somchai", "รหัสใหม่-ปลอดภัย-99")
}

// TestRefreshReuseOutsideGraceRevokesFamily: a stolen, already-rotated token
// used after the grace window kills the whole family.
func TestRefreshReuseOutsideGraceRevokesFamily(t *testing.T) {
	clock := &stack.Clock{}
	e := startStack(t, nil, clock.Now)
	e.registerVerified("malee", "malee@example.com", "correct horse battery")
	l := e.login("malee", "correct horse battery")
	r1 := e.call("POST", "/refresh-token", map[string]string{"refresh_token": l.str("refresh_token")})
	expect(t, r1, 200, "refresh")
	clock.Advance(11 * time.Second) // the grace window is 10 s (docs/architecture.md#tokens-and-sessions)
	expect(t, e.call("POST", "/refresh-token", map[string]string{"refresh_token": l.str("refresh_token")}), 401, "reuse outside grace")
	expect(t, e.call("POST", "/refresh-token", map[string]string{"refresh_token": r1.str("refresh_token")}), 401, "family revoked")
}

// TestWrongCodes: 50 concurrent wrong submissions are evaluated at most 5 times,
// and the code is dead afterwards.
func TestWrongCodes(t *testing.T) {
	e := startStack(t, nil)
	expect(t, e.call("POST", "/register", map[string]string{"username": "wichai", "email": "wichai@example.com", "password": "long enough pass"}), 200, "register")
	good := e.code("wichai@example.com")
	wrong := "000000"
	if good == wrong {
		wrong = "111111"
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	counts := map[int]int{}
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := e.call("POST", "/verify-otp?email=wichai@example.com&otp="+wrong, nil)
			mu.Lock()
			counts[r.Status]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if counts[400] > 5 || counts[400]+counts[429] != 50 {
		t.Fatalf("50 wrong codes: statuses %v (at most 5 evaluated, the rest 429)", counts)
	}
	expect(t, e.call("POST", "/verify-otp?email=wichai@example.com&otp="+good, nil), 429, "right code after 5 failures")
}

// TestExpiredCode: an expired code gives its message (docs/product.md#sign-in-and-codes).
func TestExpiredCode(t *testing.T) {
	clock := &stack.Clock{}
	e := startStack(t, nil, clock.Now)
	expect(t, e.call("POST", "/register", map[string]string{"username": "dara", "email": "dara@example.com", "password": "long enough pass"}), 200, "register")
	c := e.code("dara@example.com")
	clock.Advance(301 * time.Second) // codes live 300 s (docs/product.md#business-constants-and-limits)
	expectDetail(t, e.call("POST", "/verify-otp?email=dara@example.com&otp="+c, nil), 400, "OTP has expired. Please request a new one.")
}

// TestNoEnumeration: register and forgot-password answer alike for known and
// unknown e-mails.
func TestNoEnumeration(t *testing.T) {
	e := startStack(t, nil)
	e.registerVerified("known", "known@example.com", "long enough pass")
	norm := func(r reply, email string) string {
		return fmt.Sprint(r.Status) + strings.ReplaceAll(r.Raw, email, "<email>")
	}
	k := e.call("POST", "/users/forgot-password", map[string]string{"email": "known@example.com"})
	u := e.call("POST", "/users/forgot-password", map[string]string{"email": "nobody@example.com"})
	if norm(k, "known@example.com") != norm(u, "nobody@example.com") {
		t.Fatalf("forgot-password differs:\n known %s\n unknown %s", k.Raw, u.Raw)
	}
	k = e.call("POST", "/register", map[string]string{"username": "other1", "email": "known@example.com", "password": "long enough pass"})
	u = e.call("POST", "/register", map[string]string{"username": "other2", "email": "fresh@example.com", "password": "long enough pass"})
	if norm(k, "known@example.com") != norm(u, "fresh@example.com") {
		t.Fatalf("register differs:\n known %s\n unknown %s", k.Raw, u.Raw)
	}
}

// TestBadInputREST: malformed bodies and queries get 4xx with a detail, never 500.
func TestBadInputREST(t *testing.T) {
	e := startStack(t, nil)
	cases := []struct {
		method, path string
		body         any
		want         int
		reason       string // "": any, but one there must be
	}{
		{"POST", "/login", `{"username":`, 400, "invalid-json"},
		{"POST", "/login", `[]`, 400, "invalid-json"},
		{"POST", "/login", map[string]string{}, 422, "credentials-required"},
		{"POST", "/login", map[string]any{"username": 5, "password": true}, 400, "invalid-json"},
		{"POST", "/register", map[string]string{"username": "a", "email": "not-an-email", "password": "x"}, 422, ""},
		{"POST", "/register", map[string]string{"username": "okname", "email": "ok@example.com", "password": "password"}, 422, ""},
		{"POST", "/verify-otp?email=&otp=", nil, 422, ""},
		{"POST", "/verify-otp?email=x@example.com&otp=abcdef", nil, 422, "otp-format"},
		{"POST", "/login/verify", nil, 422, ""},
		{"POST", "/users/reset-password", map[string]string{"email": "x@example.com", "otp": "1", "newPassword": ""}, 422, ""},
		{"POST", "/refresh-token", map[string]string{"refresh_token": "garbage"}, 401, ""},
		{"POST", "/refresh-token", nil, 401, "refresh-token-missing"},
		{"GET", "/users/me", nil, 401, "authentication-required"},
		{"GET", "/no/such/route", nil, 404, "not-found"},
		{"DELETE", "/login", nil, 405, "method-not-allowed"},
		{"GET", "/gen-infor?page=abc", nil, 400, "invalid-parameter"},
	}
	for _, c := range cases {
		r := e.call(c.method, c.path, c.body)
		if r.Status >= 500 || r.Status < 400 {
			t.Errorf("%s %s: status %d (%s)", c.method, c.path, r.Status, r.Raw)
			continue
		}
		if r.detail() == "" {
			t.Errorf("%s %s: no detail in %s", c.method, c.path, r.Raw)
		}
		if r.Status != c.want {
			t.Errorf("%s %s: status %d, want %d (%s)", c.method, c.path, r.Status, c.want, r.Raw)
		}
		if r.str("kind") == "" || r.str("reason") == "" || (c.reason != "" && r.str("reason") != c.reason) {
			t.Errorf("%s %s: kind %q, reason %q, want reason %q", c.method, c.path, r.str("kind"), r.str("reason"), c.reason)
		}
	}
}

// TestGatewaySurface: OpenAPI, unimplemented services answer 501 with a detail,
// internal RPCs are not reachable from outside, the SPA fallback.
func TestGatewaySurface(t *testing.T) {
	e := startStack(t, nil)
	spec := e.call("GET", "/openapi.json", nil)
	expect(t, spec, 200, "openapi")
	if paths, _ := spec.Body["paths"].(map[string]any); paths["/app/backend/api/v1/login"] == nil || paths["/app/backend/api/v1/gen-infor"] == nil {
		t.Fatalf("openapi lacks paths")
	}
	tok := e.registerVerified("nid", "nid@example.com", "long enough pass").str("access_token")
	// Bad input on a signed-in path: a 4xx with a detail, never a 5xx.
	r := e.call("POST", "/payment/checkout", map[string]any{"tier": "pro"}, bearer(tok)...)
	expectDetail(t, r, 400, "period")
	tiers := e.call("GET", "/subscription-tiers?include_all=true", nil)
	expect(t, tiers, 200, "tiers")
	if list, _ := tiers.Body["tier_details"].([]any); len(list) != 4 {
		t.Fatalf("tiers: %s", tiers.Raw)
	}
	policy, err := access.All()
	if err != nil {
		t.Fatal(err)
	}
	internal := policy.Procedures(func(r access.Rule) bool { return r.Audience == access.Internal })
	if len(internal) < 5 {
		t.Fatalf("internal procedures: %v", internal)
	}
	for _, proc := range internal {
		resp, err := e.http.Post(e.url+proc, "application/json", strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 404 {
			t.Fatalf("internal RPC %s reachable from outside: %d", proc, resp.StatusCode)
		}
	}
}

func checkCookies(t *testing.T, r reply) {
	t.Helper()
	found := map[string]bool{}
	for _, c := range r.Header.Values("Set-Cookie") {
		name := strings.SplitN(c, "=", 2)[0]
		lc := strings.ToLower(c)
		if !strings.Contains(lc, "httponly") || !strings.Contains(lc, "max-age=604800") || !strings.Contains(lc, "samesite") {
			t.Fatalf("cookie %s lacks HttpOnly/Max-Age/SameSite: %s", name, c)
		}
		// The refresh token travels only to the paths that read it.
		if name == "refresh_token" && (strings.Contains(lc, "path=/;") || !strings.Contains(lc, "refresh") && !strings.Contains(lc, "logout")) {
			t.Fatalf("refresh cookie sent beyond the refresh paths: %s", c)
		}
		found[name] = true
	}
	if !found["access_token"] || !found["refresh_token"] {
		t.Fatalf("login set cookies %v, want access_token and refresh_token", r.Header.Values("Set-Cookie"))
	}
}
