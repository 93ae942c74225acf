package stack_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestWebhookREST: a user sets an outgoing webhook (the secret shown once),
// an alert arrives at it signed with that secret, the delivery log shows
// it; bad addresses are refused with a detail; removing it twice is a 404.
func TestWebhookREST(t *testing.T) {
	var mu sync.Mutex
	var got []*http.Request
	var bodies [][]byte
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got, bodies = append(got, r), append(bodies, b)
		mu.Unlock()
	}))
	defer receiver.Close()
	// The receiver is on the loopback: the development flag lets it in.
	e := startStack(t, map[string]string{"ADMIN_EMAILS": "@ops.bidradar.test", "WEBHOOK_ALLOW_PRIVATE": "true"})
	admin := bearer(e.registerVerified("ops", "ops@ops.bidradar.test", "long enough pass").str("access_token"))
	a := bearer(e.registerVerified("ann", "ann@example.com", "long enough pass").str("access_token"))

	expect(t, e.call("GET", "/notification-settings/webhook", nil), 401, "webhook signed out")
	expect(t, e.call("PUT", "/notification-settings/webhook", map[string]string{"url": receiver.URL}), 401, "set webhook signed out")
	for _, bad := range []string{"", "ftp://x.example/", "http://hooks.example.com/x", "https://u:p@hooks.example.com/"} {
		expectDetail(t, e.call("PUT", "/notification-settings/webhook", map[string]string{"url": bad}, a...), 400, "https://")
	}
	expectDetail(t, e.call("DELETE", "/notification-settings/webhook", nil, a...), 404, "No webhook")
	empty := e.call("GET", "/notification-settings/webhook", nil, a...)
	expect(t, empty, 200, "webhook unset")
	if empty.Body["webhook"] != nil || len(empty.Body["deliveries"].([]any)) != 0 {
		t.Fatalf("unset webhook: %s", empty.Raw)
	}

	set := e.call("PUT", "/notification-settings/webhook", map[string]string{"url": receiver.URL + "/in"}, a...)
	expect(t, set, 200, "set webhook")
	secret := set.str("secret")
	if !strings.HasPrefix(secret, "whsec_") || set.Body["webhook"].(map[string]any)["secret_hint"] != secret[len(secret)-4:] {
		t.Fatalf("set: %s", set.Raw)
	}
	if strings.Contains(e.call("GET", "/notification-settings/webhook", nil, a...).Raw, secret) {
		t.Fatal("the secret is shown again")
	}

	expect(t, e.call("POST", "/to_do_search", map[string]any{"keyWord_Incl_And": []string{"ท่าเทียบเรือ"}}, a...), 200, "save search")
	pkg := ocdsPackage("69555555555", "จ้างก่อสร้างท่าเทียบเรือ บ้านแหลม", "tender")
	expect(t, e.call("POST", "/admin/ingest", map[string]string{"source": "ocds", "content": base64.StdEncoding.EncodeToString([]byte(pkg))}, admin...), 200, "ingest")

	deadline := time.Now().Add(15 * time.Second)
	for {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 {
		t.Fatalf("%d webhook requests", len(got))
	}
	r, body := got[0], bodies[0]
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(r.Header.Get("X-BidRadar-Timestamp") + "."))
	m.Write(body)
	if r.URL.Path != "/in" || r.Header.Get("X-BidRadar-Signature") != "v1="+hex.EncodeToString(m.Sum(nil)) ||
		r.Header.Get("X-BidRadar-Delivery") == "" || !strings.Contains(string(body), "69555555555") {
		t.Fatalf("webhook request %s %v %s", r.URL, r.Header, body)
	}
	var log reply
	for time.Now().Before(deadline) {
		log = e.call("GET", "/notification-settings/webhook", nil, a...)
		if ds := log.Body["deliveries"].([]any); len(ds) == 1 && ds[0].(map[string]any)["status"] == "sent" {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	d := log.Body["deliveries"].([]any)[0].(map[string]any)
	if d["status"] != "sent" || d["attempts"] != float64(1) || d["last_status_code"] != float64(200) || !strings.Contains(d["title"].(string), "ท่าเทียบเรือ") {
		t.Fatalf("log: %s", log.Raw)
	}
	expect(t, e.call("DELETE", "/notification-settings/webhook", nil, a...), 200, "remove webhook")
	expect(t, e.call("DELETE", "/notification-settings/webhook", nil, a...), 404, "remove webhook twice")
}

// TestAlertSettingsRateLimits: one account cannot flood: test notifications
// (test and test-multiple together) at most 30 a minute, webhook changes at
// most 20 an hour, each then 429 with Retry-After; another account is not
// held back. Without the development flag a webhook on the loopback is
// refused outright.
func TestAlertSettingsRateLimits(t *testing.T) {
	e := startStack(t, nil)
	a := bearer(e.registerVerified("ann", "ann@example.com", "long enough pass").str("access_token"))
	b := bearer(e.registerVerified("bob", "bob@example.com", "long enough pass").str("access_token"))

	expectDetail(t, e.call("PUT", "/notification-settings/webhook", map[string]string{"url": "http://127.0.0.1:9/hook"}, a...), 400, "https://")
	expectDetail(t, e.call("PUT", "/notification-settings/webhook", map[string]string{"url": "https://10.0.0.7/hook"}, a...), 400, "https://")

	limited := func(r reply, what string, most int) {
		t.Helper()
		expectReason(t, r, 429, "resource_exhausted", r.str("reason"))
		if r.detail() == "" || r.str("reason") == "" {
			t.Fatalf("%s: %s", what, r.Raw)
		}
		if s, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || s < 1 || s > most {
			t.Fatalf("%s: Retry-After %q, want 1..%d", what, r.Header.Get("Retry-After"), most)
		}
	}
	for i := range 30 {
		path := "/bell/notifications/test"
		if i%2 == 1 {
			path = "/bell/notifications/test-multiple?count=2"
		}
		expect(t, e.call("POST", path, nil, a...), 200, fmt.Sprintf("test notification %d", i+1))
	}
	limited(e.call("POST", "/bell/notifications/test", nil, a...), "the 31st test notification", 60)
	limited(e.call("POST", "/bell/notifications/test-multiple?count=2", nil, a...), "test-multiple after 30 calls", 60)
	expect(t, e.call("POST", "/bell/notifications/test", nil, b...), 200, "another account's test notification")

	for i := range 20 {
		if i%2 == 0 {
			expect(t, e.call("PUT", "/notification-settings/webhook", map[string]string{"url": fmt.Sprintf("https://hooks.example.com/%d", i)}, a...), 200, "set webhook")
		} else {
			expect(t, e.call("DELETE", "/notification-settings/webhook", nil, a...), 200, "remove webhook")
		}
	}
	limited(e.call("PUT", "/notification-settings/webhook", map[string]string{"url": "https://hooks.example.com/late"}, a...), "the 21st webhook change", 3600)
	limited(e.call("DELETE", "/notification-settings/webhook", nil, a...), "a removal after 20 changes", 3600)
	expect(t, e.call("PUT", "/notification-settings/webhook", map[string]string{"url": "https://hooks.example.com/bob"}, b...), 200, "another account's webhook")
}
