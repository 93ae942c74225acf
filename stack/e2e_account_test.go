package stack_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"bidradar/stack"
)

// TestActivationREST: POST /resend-otp and its alias /activate-account as the
// activation screen calls them: throttled for 60 s after the last code (the
// auth clock is moved, nobody waits), a fresh code that activates, the same
// answer for unknown e-mails, 422 for a bad one.
func TestActivationREST(t *testing.T) {
	clock := &stack.Clock{}
	e := startStack(t, nil, clock.Now)
	const email = "kanya@example.co.th"
	expect(t, e.call("POST", "/register", map[string]string{"username": "kanya", "email": email, "password": "ประมูลงานรัฐ-2569", "name": "กัญญา"}), 200, "register")
	first := e.code(email)

	for _, path := range []string{"/resend-otp", "/activate-account"} {
		expectDetail(t, e.call("POST", path+"?email="+url.QueryEscape(email), nil), 429, "before requesting a new code")
	}
	clock.Advance(61 * time.Second) // a new code 60 s after the last one (docs/architecture.md#one-time-codes)
	r := e.call("POST", "/resend-otp?email="+url.QueryEscape(email), nil)
	expect(t, r, 200, "resend-otp after a minute")
	if r.Body["expires_in"] != float64(300) || r.str("message") == "" {
		t.Fatalf("resend-otp: %s", r.Raw)
	}
	_ = e.code(email) // the second code, replaced below before use

	// The account is still inactive: login says so, and the activation
	// screen asks for another code through /activate-account.
	expectDetail(t, e.call("POST", "/login", map[string]string{"username": "kanya", "password": "ประมูลงานรัฐ-2569"}), 403, "inactive")
	clock.Advance(61 * time.Second)
	a := e.call("POST", "/activate-account?email="+url.QueryEscape(email), nil)
	expect(t, a, 200, "activate-account")
	if a.str("message") != r.str("message") {
		t.Fatalf("activate-account and resend-otp answer differently: %s vs %s", a.Raw, r.Raw)
	}
	third := e.code(email)
	// Only the newest code counts (unless the random codes collide).
	if first != third {
		expectDetail(t, e.call("POST", "/verify-otp?email="+url.QueryEscape(email)+"&otp="+first, nil), 400, "Invalid verification code")
	}
	expect(t, e.call("POST", "/verify-otp?email="+url.QueryEscape(email)+"&otp="+third, nil), 200, "verify the newest code")
	// Tokens issued now carry the moved clock, so the proof is the login
	// itself rather than a call with them (the other services use real time).
	expect(t, e.call("POST", "/login", map[string]string{"username": "kanya", "password": "ประมูลงานรัฐ-2569"}), 200, "login once active")

	// Unknown and active e-mails get the same answer and no mail.
	clock.Advance(61 * time.Second)
	for _, who := range []string{"nobody@example.co.th", email} {
		u := e.call("POST", "/resend-otp?email="+url.QueryEscape(who), nil)
		expect(t, u, 200, "resend for "+who)
		if u.str("message") != r.str("message") || u.Body["expires_in"] != r.Body["expires_in"] {
			t.Fatalf("resend for %s differs: %s vs %s", who, u.Raw, r.Raw)
		}
	}
	if m, err := e.mail.WaitFor("nobody@example.co.th", 500*time.Millisecond); err == nil {
		t.Fatalf("mail to an unknown address: %q", m.Subject)
	}

	for _, path := range []string{"/resend-otp", "/activate-account"} {
		for _, q := range []string{"", "?email=", "?email=not-an-email"} {
			res := e.call("POST", path+q, nil)
			if res.Status != 422 || res.detail() == "" {
				t.Errorf("POST %s%s: %d %s, want 422 with a detail", path, q, res.Status, res.Raw)
			}
		}
	}
}

// TestChangePasswordREST: POST /users/me/change-password checks the current
// password, keeps the calling session, ends the others, mails a notice.
func TestChangePasswordREST(t *testing.T) {
	e := startStack(t, nil)
	const email, old, next = "prasert@example.co.th", "ประมูลงานรัฐ-2569", "รหัสใหม่-ปลอดภัย-99"
	here := e.registerVerified("prasert", email, old)
	there := e.login("prasert", old) // another device
	me := bearer(here.str("access_token"))

	expectDetail(t, e.call("POST", "/users/me/change-password", map[string]string{"current_password": old, "new_password": next}), 401, "Authentication required")
	expectDetail(t, e.call("POST", "/users/me/change-password", map[string]string{"current_password": "wrong-password", "new_password": next}, me...), 400, "Current password is incorrect")
	expectDetail(t, e.call("POST", "/users/me/change-password", map[string]string{"current_password": old, "new_password": "short"}, me...), 422, "at least")
	expectDetail(t, e.call("POST", "/users/me/change-password", map[string]string{"current_password": old, "new_password": old}, me...), 422, "different")
	bad := e.call("POST", "/users/me/change-password", `{"current_password":`, me...)
	if bad.Status != 400 || bad.detail() == "" {
		t.Fatalf("malformed body: %d %s", bad.Status, bad.Raw)
	}
	// Nothing changed yet.
	e.login("prasert", old)

	ok := e.call("POST", "/users/me/change-password", map[string]string{"current_password": old, "new_password": next}, me...)
	expect(t, ok, 200, "change-password")
	if ok.str("message") != "Password changed successfully" {
		t.Fatalf("change-password: %s", ok.Raw)
	}
	expect(t, e.call("GET", "/users/me", nil, me...), 200, "the calling session stays signed in")
	expect(t, e.call("POST", "/refresh-token", map[string]string{"refresh_token": here.str("refresh_token")}), 200, "the calling session refreshes")
	expect(t, e.call("POST", "/refresh-token", map[string]string{"refresh_token": there.str("refresh_token")}), 401, "the other device is signed out")
	expect(t, e.call("GET", "/users/me", nil, bearer(there.str("access_token"))...), 401, "the other device's access token")
	expect(t, e.call("POST", "/login", map[string]string{"username": "prasert", "password": old}), 401, "old password")
	e.login("prasert", next)

	// The owner hears of it by e-mail (no code in it).
	deadline := time.Now().Add(15 * time.Second)
	for {
		m, err := e.mail.WaitFor(email, time.Until(deadline))
		if err != nil {
			t.Fatalf("no notice of the change: %v", err)
		}
		if strings.Contains(m.Text, "รหัสผ่าน") || strings.Contains(strings.ToLower(m.Text), "password") {
			break
		}
	}
}

// TestProjectOCDSREST: GET /projects/{id}/ocds returns the project as an
// OCDS release, to signed-in users whose tier includes it; unknown and
// malformed ids are 4xx.
func TestProjectOCDSREST(t *testing.T) {
	e := startStack(t, map[string]string{"DEMO_DATA": "5"})
	list := e.call("GET", "/gen-infor?page=1&per_page=1", nil)
	expect(t, list, 200, "gen-infor")
	rows, _ := list.Body["data"].([]any)
	if len(rows) != 1 {
		t.Fatalf("gen-infor: %s", list.Raw)
	}
	row := rows[0].(map[string]any)
	id, _ := row["project_id"].(string)
	if id == "" {
		t.Fatalf("no project_id in %v", row)
	}
	name, _ := row["project_name"].(string)
	me := bearer(e.registerVerified("ocds", "ocds@example.com", "long enough pass").str("access_token"))

	expectDetail(t, e.call("GET", "/projects/"+id+"/ocds", nil), 401, "Authentication required")
	// The export is in the pro tier.
	expectReason(t, e.call("GET", "/projects/"+id+"/ocds", nil, me...), 403, "permission_denied", "upgrade_required")
	e.upgrade(me, "pro")
	r := e.call("GET", "/projects/"+id+"/ocds", nil, me...)
	expect(t, r, 200, "ocds")
	if ocid := r.str("ocid"); !strings.HasPrefix(ocid, "ocds-") || !strings.HasSuffix(ocid, id) {
		t.Fatalf("ocid %q for project %s (%s)", ocid, id, r.Raw)
	}
	tender, _ := r.Body["tender"].(map[string]any)
	if tender == nil || tender["title"] != name || name == "" {
		t.Fatalf("tender %v, want the title %q", tender, name)
	}
	if tags, _ := r.Body["tag"].([]any); len(tags) == 0 {
		t.Fatalf("release without tag: %s", r.Raw)
	}

	expectDetail(t, e.call("GET", "/projects/69999999999/ocds", nil, me...), 404, "Project not found")
	bad := e.call("GET", "/projects/not-a-project/ocds", nil, me...)
	if bad.Status != 400 || bad.detail() == "" {
		t.Fatalf("malformed id: %d %s", bad.Status, bad.Raw)
	}
}
