package stack_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/png"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestAccountSelfService: a user sees the devices signed in, signs one out,
// signs out everywhere else, edits the profile, writes to support, and
// deletes the account: every session ends, the personal data is erased in
// every service (user.deactivated), and the e-mail can register again.
func TestAccountSelfService(t *testing.T) {
	e := startStack(t, map[string]string{"DEMO_DATA": "3", "SUPPORT_EMAIL": "support@bidradar.test"})
	e.registerVerified("dara", "dara@example.com", "long enough pass")
	e.registerVerified("eve", "eve@example.com", "long enough pass")
	chrome := []string{"User-Agent", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36"}
	loginWith := func(user string, headers ...string) string {
		r := e.call("POST", "/login", map[string]string{"username": user, "password": "long enough pass"}, headers...)
		expect(t, r, 200, "login "+user)
		return r.str("access_token")
	}
	t1 := loginWith("dara", chrome...)
	t2 := loginWith("dara", "User-Agent", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1")
	t3 := loginWith("dara")
	eveTok := loginWith("eve")

	// Signed out: 401 on every new path.
	for _, c := range [][2]string{{"GET", "/users/me/sessions"}, {"DELETE", "/users/me/sessions/x"}, {"POST", "/users/me/sessions/end-all"},
		{"PATCH", "/users/me"}, {"POST", "/users/me/delete/send-otp"}, {"POST", "/users/me/delete"}, {"POST", "/contact-us"}} {
		if r := e.call(c[0], c[1], map[string]any{}); r.Status != 401 {
			t.Fatalf("%s %s signed out: %d %s", c[0], c[1], r.Status, r.Raw)
		}
	}

	sessions := func(tok string) []map[string]any {
		r := e.call("GET", "/users/me/sessions", nil, bearer(tok)...)
		expect(t, r, 200, "sessions")
		list, _ := r.Body["sessions"].([]any)
		out := make([]map[string]any, len(list))
		for i, s := range list {
			out[i] = s.(map[string]any)
		}
		return out
	}
	list := sessions(t1)
	// registerVerified signed in once more: four sessions.
	if len(list) != 4 {
		t.Fatalf("sessions: %v", list)
	}
	var current, iphone string
	devices := map[string]bool{}
	for _, s := range list {
		devices[s["device"].(string)] = true
		if s["current"] == true {
			current = s["session_id"].(string)
		}
		if s["device"] == "Safari · iPhone" {
			iphone = s["session_id"].(string)
		}
	}
	if current == "" || iphone == "" || !devices["Chrome · Windows"] {
		t.Fatalf("current %q, iPhone %q, devices %v", current, iphone, devices)
	}
	// Another user cannot end it; a bad id is 404 too.
	expect(t, e.call("DELETE", "/users/me/sessions/"+iphone, nil, bearer(eveTok)...), 404, "eve ends dara's session")
	expect(t, e.call("DELETE", "/users/me/sessions/not-a-uuid", nil, bearer(t1)...), 404, "bad session id")
	expect(t, e.call("DELETE", "/users/me/sessions/"+iphone, nil, bearer(t1)...), 200, "end the iPhone session")
	waitStatus(t, e, t2, 401)
	expect(t, e.call("DELETE", "/users/me/sessions/"+iphone, nil, bearer(t1)...), 404, "end it again")

	// Everywhere but here.
	r := e.call("POST", "/users/me/sessions/end-all", map[string]any{"keep_current": true}, bearer(t1)...)
	expect(t, r, 200, "end-all")
	if r.Body["ended"] != float64(2) {
		t.Fatalf("end-all: %s", r.Raw)
	}
	waitStatus(t, e, t3, 401)
	expect(t, e.call("GET", "/users/me", nil, bearer(t1)...), 200, "this device stays signed in")
	if n := len(sessions(t1)); n != 1 {
		t.Fatalf("after end-all: %d sessions", n)
	}

	// Profile: name and a real PNG; bad pictures and names are 422.
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 64, 64))); err != nil {
		t.Fatal(err)
	}
	pic := "data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())
	r = e.call("PATCH", "/users/me", map[string]any{"name": "  ดารา   ใจดี ", "picture_url": pic}, bearer(t1)...)
	expect(t, r, 200, "update profile")
	if u, _ := r.Body["user"].(map[string]any); u["name"] != "ดารา ใจดี" || u["picture_url"] != pic {
		t.Fatalf("profile: %s", r.Raw)
	}
	for name, body := range map[string]map[string]any{
		"not an image":   {"name": "x", "picture_url": "data:image/png;base64," + base64.StdEncoding.EncodeToString([]byte("hello"))},
		"lying type":     {"name": "x", "picture_url": "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())},
		"svg":            {"name": "x", "picture_url": "data:image/svg+xml;base64,PHN2Zz4="},
		"remote url":     {"name": "x", "picture_url": "https://evil.example/p.png"},
		"name too long":  {"name": strings.Repeat("ก", 101)},
		"name with bell": {"name": "a\u0007b"},
	} {
		if r := e.call("PATCH", "/users/me", body, bearer(t1)...); r.Status != 422 || r.detail() == "" {
			t.Fatalf("%s: %d %s", name, r.Status, r.Raw)
		}
	}
	if r := e.call("PATCH", "/users/me", map[string]any{"name": "ดารา", "picture_url": strings.Repeat("A", 200_000)}, bearer(t1)...); r.Status < 400 || r.Status >= 500 {
		t.Fatalf("huge picture: %d %s", r.Status, r.Raw)
	}
	me := e.call("GET", "/users/me", nil, bearer(t1)...)
	if me.str("picture_url") != pic {
		t.Fatalf("picture not kept: %s", me.Raw[:min(len(me.Raw), 200)])
	}

	// Contact us: stored and mailed to support.
	expect(t, e.call("POST", "/contact-us", map[string]any{"topic": "ใบกำกับภาษี", "message": "ขอใบกำกับภาษีฉบับเต็ม\nขอบคุณค่ะ"}, bearer(t1)...), 200, "contact")
	m, err := e.mail.WaitFor("support@bidradar.test", 15*time.Second)
	if err != nil || !strings.Contains(m.Text, "ขอใบกำกับภาษีฉบับเต็ม") || !strings.Contains(m.Text, "dara@example.com") {
		t.Fatalf("support mail: %v %+v", err, m)
	}
	expect(t, e.call("POST", "/contact-us", map[string]any{"topic": "x", "message": "   "}, bearer(t1)...), 422, "empty message")
	expect(t, e.call("POST", "/contact-us", map[string]any{"topic": "", "message": "hi"}, bearer(t1)...), 422, "empty topic")
	// Five an hour: support's inbox is not a loudspeaker.
	for i := 2; i <= 5; i++ {
		expect(t, e.call("POST", "/contact-us", map[string]any{"topic": "ข้อ " + itoa(i), "message": "ข้อความ"}, bearer(t1)...), 200, "contact "+itoa(i))
	}
	if r := e.call("POST", "/contact-us", map[string]any{"topic": "ข้อ 6", "message": "ข้อความ"}, bearer(t1)...); r.Status != 429 || r.Header.Get("Retry-After") == "" {
		t.Fatalf("sixth message in an hour: %d %s", r.Status, r.Raw)
	}

	// Data in every service, then the deletion.
	list2 := e.call("GET", "/gen-infor?per_page=1", nil)
	pid := list2.Body["data"].([]any)[0].(map[string]any)["project_id"].(string)
	expect(t, e.call("PATCH", "/userInterests/"+pid, map[string]any{"is_userLike": true}, bearer(t1)...), 200, "like")
	expect(t, e.call("POST", "/userInterests/"+pid+"/comments", map[string]any{"comment_text": "น่าสนใจ"}, bearer(t1)...), 200, "comment")
	expect(t, e.call("POST", "/to_do_search", map[string]any{"keyWord_Incl_Or": []string{"ถนน"}, "search_type": "normal"}, bearer(t1)...), 200, "saved search")
	expect(t, e.call("POST", "/bell/notifications/test", nil, bearer(t1)...), 200, "notification")
	expect(t, e.call("PUT", "/users/me/billing-profile", map[string]any{"kind": "person", "name": "ดารา ใจดี",
		"tax_id": "0105551234567", "head_office": true, "address": "99 ถนนสีลม กรุงเทพมหานคร 10500"}, bearer(t1)...), 200, "billing profile")
	userID := me.str("id_user")
	counts := func() map[string]int {
		conn, err := pgx.Connect(context.Background(), e.db)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(context.Background())
		out := map[string]int{}
		for name, q := range map[string]string{
			"interests":     `SELECT count(*) FROM interests.interests WHERE user_id = $1`,
			"comments":      `SELECT count(*) FROM interests.comments WHERE user_id = $1`,
			"criteria":      `SELECT count(*) FROM projects.search_criteria WHERE user_id = $1`,
			"notifications": `SELECT count(*) FROM notification.notifications WHERE user_id = $1::uuid`,
			"billing":       `SELECT count(*) FROM subscription.billing_profiles WHERE user_id = $1`,
			"auth-personal": `SELECT count(*) FROM auth.users WHERE id = $1::uuid AND (email LIKE '%example.com' OR name <> '' OR picture_url <> '')`,
		} {
			var n int
			if err := conn.QueryRow(context.Background(), q, userID).Scan(&n); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			out[name] = n
		}
		return out
	}
	before := counts()
	for name, n := range before {
		if n == 0 {
			t.Fatalf("before deletion, no %s row: %v", name, before)
		}
	}

	expect(t, e.call("POST", "/users/me/delete", map[string]any{"otp": "123456"}, bearer(t1)...), 400, "delete without a code sent")
	r = e.call("POST", "/users/me/delete/send-otp", nil, bearer(t1)...)
	expect(t, r, 200, "send deletion code")
	code := e.code("dara@example.com")
	expect(t, e.call("POST", "/users/me/delete", map[string]any{"otp": "12"}, bearer(t1)...), 422, "malformed code")
	wrong := "000000"
	if code == wrong {
		wrong = "111111"
	}
	expect(t, e.call("POST", "/users/me/delete", map[string]any{"otp": wrong}, bearer(t1)...), 400, "wrong code")
	expect(t, e.call("POST", "/users/me/delete", map[string]any{"otp": code}, bearer(eveTok)...), 400, "eve with dara's code")
	r = e.call("POST", "/users/me/delete", map[string]any{"otp": code}, bearer(t1)...)
	expect(t, r, 200, "delete account")
	waitStatus(t, e, t1, 401)
	expect(t, e.call("POST", "/login", map[string]string{"username": "dara@example.com", "password": "long enough pass"}), 401, "login after deletion")
	deadline := time.Now().Add(15 * time.Second)
	for {
		after := counts()
		left := 0
		for _, n := range after {
			left += n
		}
		if left == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("15 s after deletion, still stored: %v", after)
		}
		time.Sleep(100 * time.Millisecond)
	}
	expect(t, e.call("GET", "/users/me", nil, bearer(eveTok)...), 200, "eve is untouched")
	// The address is free again.
	e.registerVerified("dara2", "dara@example.com", "long enough pass")
}

// waitStatus waits up to a second for /users/me with tok to answer status.
func waitStatus(t *testing.T, e *env, tok string, status int) {
	t.Helper()
	deadline := time.Now().Add(time.Second)
	for {
		r := e.call("GET", "/users/me", nil, bearer(tok)...)
		if r.Status == status {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("/users/me: %d, want %d within 1 s", r.Status, status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
