package stack_test

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/rs/zerolog"

	"bidradar/pkg/testutil/pgtest"
)

// TestHostileInputREST sends the input an attacker sent (issue 12): every
// answer is a 4xx with a detail, never a 500 or an internal message.
func TestHostileInputREST(t *testing.T) {
	e := startStack(t, map[string]string{"DEMO_DATA": "5"})
	cases := []struct {
		method, path string
		body         any
		status       int
	}{
		{"GET", "/gen-infor?keyword=%FF%FE", nil, 400},
		{"GET", "/projects/%FF%FE", nil, 400},
		{"GET", "/gen-infor?dept_User=%00", nil, 400},
		{"GET", "/gen-infor?page=abc", nil, 400},
		{"GET", "/gen-infor?per_page=1e99", nil, 400},
		{"POST", "/login", map[string]string{"username": "a\u0000b", "password": "x"}, 400},
		{"POST", "/login", `{"username": "\u0000", "password": "x"}`, 400},
		{"POST", "/login", "{\"username\": \"\xff\xfe\", \"password\": \"x\"}", 400},
		{"POST", "/login", `{"username": 12, "password": "x"}`, 400},
		{"POST", "/login", `{"username": "a", "password": "x"`, 400},
		{"POST", "/users/forgot-password", `[1,2,3]`, 400},
	}
	for _, c := range cases {
		r := e.call(c.method, c.path, c.body)
		if r.Status != c.status || r.detail() == "" {
			t.Errorf("%s %s: %d %s, want %d with a detail", c.method, c.path, r.Status, r.Raw, c.status)
		}
		for _, leak := range []string{"proto:", "strconv.", "grpc:", "syntax error", "marshal"} {
			if strings.Contains(r.detail(), leak) {
				t.Errorf("%s %s leaks %q: %s", c.method, c.path, leak, r.Raw)
			}
		}
	}

	// A body over the limit is 413 with a detail, before anything reads it all.
	big := bytes.Repeat([]byte("a"), 2<<20)
	req, _ := http.NewRequest("POST", e.url+"/app/backend/api/v1/login", bytes.NewReader(big))
	req.Header.Set("Content-Type", "application/json")
	resp, err := e.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 413 || !strings.Contains(string(b), "detail") {
		t.Fatalf("2 MiB login body: %d %s", resp.StatusCode, b)
	}
	// The same without a length (chunked): cut off at the limit.
	req, _ = http.NewRequest("POST", e.url+"/app/backend/api/v1/register", io.MultiReader(bytes.NewReader(big)))
	req.Header.Set("Content-Type", "application/json")
	req.ContentLength = -1
	if resp, err = e.http.Do(req); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 413 {
		t.Fatalf("chunked 2 MiB body: %d", resp.StatusCode)
	}

	// Login CSRF: a cross-site form post cannot log anyone in.
	req, _ = http.NewRequest("POST", e.url+"/app/backend/api/v1/login", strings.NewReader(`{"username":"a","password":"b"}`))
	req.Header.Set("Content-Type", "text/plain")
	req.Header.Set("Origin", "https://evil.example")
	if resp, err = e.http.Do(req); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 415 || len(resp.Header.Values("Set-Cookie")) != 0 {
		t.Fatalf("cross-site text/plain login: %d %v", resp.StatusCode, resp.Header.Values("Set-Cookie"))
	}

	// Headers: CSP with frame-ancestors on every answer; API answers are never cached.
	r := e.call("GET", "/gen-infor", nil)
	if csp := r.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Fatalf("CSP: %q", csp)
	}
	if cc := r.Header.Get("Cache-Control"); cc != "no-store" {
		t.Fatalf("API Cache-Control: %q", cc)
	}
}

// TestDatabaseDownIs503 puts a fault-injecting TCP proxy between the services
// and PostgreSQL: while it refuses connections, the API answers 503 with its
// message (docs/product.md#session-and-connection; not 500), and recovers
// within 5 s of the database coming back.
func TestDatabaseDownIs503(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dbURL, err := url.Parse(pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	api := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(nil), zerolog.Nop())
	proxy := toxiproxy.NewProxy(api, "postgres", "127.0.0.1:0", dbURL.Host)
	if err := proxy.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proxy.Stop)
	dbURL.Host = proxy.Listen
	e := startStack(t, map[string]string{"DATABASE_URL": dbURL.String(), "DEMO_DATA": "5"})
	tok := bearer(e.registerVerified("dbdown", "dbdown@example.com", "long enough pass").str("access_token"))
	probes := func() []reply {
		return []reply{
			e.call("GET", "/gen-infor?keyword=ถนน", nil),
			e.call("GET", "/users/me", nil, tok...),
			e.call("POST", "/login", map[string]string{"username": "dbdown", "password": "long enough pass"}),
			e.call("GET", "/userInterests/active", nil, tok...),
		}
	}
	for _, r := range probes() {
		expect(t, r, 200, "before the fault")
	}

	proxy.Stop()
	start := time.Now()
	for i, r := range probes() {
		if r.Status != 503 || r.detail() != "Service is currently unavailable. Please try again later." {
			t.Errorf("probe %d with the database down: %d %s", i, r.Status, r.Raw)
		}
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("503s took %v, over the 15 s budget", d)
	}

	if err := proxy.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		ok := true
		for _, r := range probes() {
			ok = ok && r.Status == 200
		}
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not recovered 5 s after the database came back: %v", probes())
		}
		time.Sleep(200 * time.Millisecond)
	}
}
