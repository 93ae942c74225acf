package stack_test

import (
	"net/url"
	"strings"
	"testing"

	"bidradar/services/auth/linetest"
)

const (
	lineChannel  = "1657000001"
	lineSecret   = "stack-test-line-channel-secret"
	lineRedirect = "http://127.0.0.1:8080/auth/line/callback"
)

// startWithLine runs the stack with LINE Login pointed at the local fake.
func startWithLine(t *testing.T) (*env, *linetest.Fake) {
	t.Helper()
	fake := linetest.Start(t, lineChannel, lineSecret, lineRedirect)
	e := startStack(t, map[string]string{
		"LINE_CHANNEL_ID": lineChannel, "LINE_CHANNEL_SECRET": lineSecret, "LINE_REDIRECT_URI": lineRedirect,
		"LINE_AUTHORIZE_URL": fake.AuthorizeURL(), "LINE_TOKEN_URL": fake.TokenURL(), "LINE_PROFILE_URL": fake.ProfileURL(),
	})
	return e, fake
}

// lineSignIn runs GET /line/auth/line/login, consent on the fake LINE, then
// POST /line/auth/line/callback, as the app's callback page does.
func lineSignIn(t *testing.T, e *env, fake *linetest.Fake, u linetest.User, headers ...string) reply {
	t.Helper()
	az := e.call("GET", "/line/auth/line/login?redirect_to="+url.QueryEscape("/search"), nil, headers...)
	expect(t, az, 200, "line login")
	code, state, err := fake.Approve(az.str("authorize_url"), u)
	if err != nil {
		t.Fatalf("consent on LINE: %v (authorize_url %s)", err, az.str("authorize_url"))
	}
	if state != az.str("state") {
		t.Fatalf("state %q, want %q", state, az.str("state"))
	}
	return e.call("POST", "/line/auth/line/callback", map[string]string{"code": code, "state": state}, headers...)
}

// TestLineREST drives the LINE routes through the gateway: login URL,
// callback, linking a new LINE identity by an e-mailed code, signing straight
// in the next time, LINE's refresh path, linking from a signed-in account,
// and bad input on each route (4xx with a detail, never 5xx).
func TestLineREST(t *testing.T) {
	e, fake := startWithLine(t)

	az := e.call("GET", "/line/auth/line/login", nil)
	expect(t, az, 200, "line login")
	q, err := url.Parse(az.str("authorize_url"))
	if err != nil || !strings.HasPrefix(az.str("authorize_url"), fake.AuthorizeURL()) {
		t.Fatalf("authorize_url %q", az.str("authorize_url"))
	}
	if q.Query().Get("client_id") != lineChannel || q.Query().Get("state") != az.str("state") || q.Query().Get("code_challenge_method") != "S256" {
		t.Fatalf("authorize_url lacks the channel, state or PKCE: %s", az.str("authorize_url"))
	}

	// A LINE identity nobody has linked: link_required, no session yet.
	newcomer := linetest.User{Sub: "U1111111111111111111111111111111a", Name: "สมหญิง ไลน์", Email: "somying@example.co.th"}
	cb := lineSignIn(t, e, fake, newcomer)
	expect(t, cb, 200, "callback")
	if cb.str("status") != "link_required" || cb.str("link_token") == "" || cb.str("access_token") != "" || cb.str("email") != newcomer.Email {
		t.Fatalf("callback for a new LINE identity: %s", cb.Raw)
	}
	if len(cb.Header.Values("Set-Cookie")) != 0 {
		t.Fatalf("session cookies before linking: %v", cb.Header.Values("Set-Cookie"))
	}
	link := cb.str("link_token")
	expectDetail(t, e.call("POST", "/line/auth/line/link/send-otp", map[string]string{"link_token": "bogus", "email": newcomer.Email}), 400, "LINE link session expired")
	expect(t, e.call("POST", "/line/auth/line/link/send-otp", map[string]string{"link_token": link, "email": newcomer.Email}), 200, "link send-otp")
	code := e.code(newcomer.Email)
	wrong := "000000"
	if code == wrong {
		wrong = "111111"
	}
	expectDetail(t, e.call("POST", "/line/auth/line/link/verify", map[string]string{"link_token": link, "email": newcomer.Email, "otp": wrong}), 400, "Invalid verification code")
	lv := e.call("POST", "/line/auth/line/link/verify", map[string]string{"link_token": link, "email": newcomer.Email, "otp": code})
	expect(t, lv, 200, "link verify")
	if lv.str("access_token") == "" || lv.str("refresh_token") == "" {
		t.Fatalf("link verify: %s", lv.Raw)
	}
	checkCookies(t, lv)
	me := e.call("GET", "/users/me", nil, bearer(lv.str("access_token"))...)
	expect(t, me, 200, "users/me after linking")
	if me.str("email") != newcomer.Email || me.str("line_id1") != newcomer.Sub {
		t.Fatalf("the linked account: %s", me.Raw)
	}
	expect(t, e.call("POST", "/line/auth/line/link/verify", map[string]string{"link_token": link, "email": newcomer.Email, "otp": code}), 400, "link verify twice")

	// Next time the same LINE identity signs straight in, and refreshes on
	// LINE's path with rotation.
	again := lineSignIn(t, e, fake, newcomer)
	expect(t, again, 200, "second LINE sign-in")
	if again.str("status") != "logged_in" || again.str("access_token") == "" {
		t.Fatalf("second LINE sign-in: %s", again.Raw)
	}
	checkCookies(t, again)
	rl := e.call("POST", "/line/auth/line/refresh-token", map[string]string{"refresh_token": again.str("refresh_token")})
	expect(t, rl, 200, "line refresh-token")
	if rl.str("access_token") == "" || rl.str("refresh_token") == "" || rl.str("refresh_token") == again.str("refresh_token") {
		t.Fatalf("LINE refresh did not rotate: %s", rl.Raw)
	}
	expect(t, e.call("POST", "/line/auth/line/refresh-token", map[string]string{"refresh_token": "garbage"}), 401, "line refresh with garbage")

	// A signed-in password user links LINE from the settings page.
	member := e.registerVerified("member", "member@example.co.th", "long enough pass")
	auth := bearer(member.str("access_token"))
	// The session alone does not link: the e-mailed code does (re-authentication).
	linked := lineSignIn(t, e, fake, linetest.User{Sub: "U2222222222222222222222222222222b", Name: "Member"}, auth...)
	expect(t, linked, 200, "link while signed in")
	if linked.str("status") != "link_required" || linked.str("email") != "member@example.co.th" {
		t.Fatalf("link while signed in: %s", linked.Raw)
	}
	expect(t, e.call("POST", "/line/auth/line/link/send-otp", map[string]string{"link_token": linked.str("link_token"), "email": "member@example.co.th"}), 200, "member's link code")
	done := e.call("POST", "/line/auth/line/link/verify", map[string]string{"link_token": linked.str("link_token"), "email": "member@example.co.th", "otp": e.code("member@example.co.th")})
	expect(t, done, 200, "member links LINE")
	if u, _ := done.Body["user"].(map[string]any); u["line_id1"] != "U2222222222222222222222222222222b" || u["username"] != "member" {
		t.Fatalf("member's link: %s", done.Raw)
	}
	// Someone else's LINE identity cannot be linked a second time.
	taken := lineSignIn(t, e, fake, newcomer, auth...)
	if taken.Status != 409 || taken.detail() == "" {
		t.Fatalf("linking a taken LINE identity: %d %s", taken.Status, taken.Raw)
	}

	// Bad input on every LINE route.
	cases := []struct {
		method, path string
		body         any
		want         int
		detail       string
	}{
		{"GET", "/line/auth/line/login?redirect_to=" + url.QueryEscape("https://evil.example/"), nil, 422, "redirect_to"},
		{"POST", "/line/auth/line/callback", map[string]string{}, 422, "code and state are required"},
		{"POST", "/line/auth/line/callback", map[string]string{"code": "x", "state": "never-issued"}, 400, "Invalid or expired LINE login request"},
		{"POST", "/line/auth/line/callback", `{"code":`, 400, ""},
		{"POST", "/line/auth/line/link/send-otp", map[string]string{"link_token": link, "email": "not-an-email"}, 422, ""},
		{"POST", "/line/auth/line/link/verify", map[string]string{"link_token": link, "email": newcomer.Email, "otp": "12"}, 422, "valid 6-digit"},
		{"POST", "/line/auth/line/refresh-token", nil, 401, ""},
	}
	for _, c := range cases {
		r := e.call(c.method, c.path, c.body)
		if r.Status != c.want || r.detail() == "" || !strings.Contains(r.detail(), c.detail) {
			t.Errorf("%s %s: %d %s, want %d with a detail containing %q", c.method, c.path, r.Status, r.Raw, c.want, c.detail)
		}
	}
	// Cancelled on LINE: 400, and that state is spent.
	az2 := e.call("GET", "/line/auth/line/login", nil)
	expectDetail(t, e.call("POST", "/line/auth/line/callback", map[string]string{"state": az2.str("state"), "error": "access_denied", "error_description": "user cancelled"}), 400, "cancelled")
}

// TestLineNotConfiguredREST: without a LINE channel, LINE sign-in answers
// 503 with the reason in the detail.
func TestLineNotConfiguredREST(t *testing.T) {
	e := startStack(t, nil)
	expectDetail(t, e.call("GET", "/line/auth/line/login", nil), 503, "LINE Login is not available")
}
