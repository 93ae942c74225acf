package stack_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"bidradar/pkg/testutil/natstest"
	"bidradar/pkg/testutil/pgtest"
	"bidradar/pkg/testutil/smtptest"
	"bidradar/stack"
)

// env is a stack under test with a mail catcher.
type env struct {
	t    *testing.T
	url  string
	mail *smtptest.Server
	http *http.Client
	// db is the stack's DATABASE_URL, for tests that check what is stored.
	db string
	// targets are the services' own addresses (AUTH_TARGET: host:port).
	targets map[string]string
}

// startStack runs the whole stack in-process on a fresh database, an embedded
// NATS and a real SMTP catcher, exactly as `make run` wires it.
func startStack(t *testing.T, extra map[string]string, clock ...func() time.Time) *env {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end: skipped with -short")
	}
	mail := smtptest.Start(t)
	vars := map[string]string{
		"DATABASE_URL": pgtest.NewDatabase(t),
		"NATS_URL":     natstest.Start(t),
		"HTTP_ADDR":    "127.0.0.1:0",
		"SMTP_HOST":    mail.Host(),
		"SMTP_PORT":    itoa(mail.Port()),
		"DEMO_DATA":    "0",
		"WEB_DIR":      t.TempDir(),
		"LOG_LEVEL":    "warn",
	}
	for k, v := range extra {
		vars[k] = v
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	opts := stack.Options{Getenv: func(k string) string { return vars[k] }, DataDir: t.TempDir(), Quiet: os.Getenv("E2E_LOGS") == ""}
	if len(clock) > 0 {
		opts.AuthClock = clock[0]
	}
	s, err := stack.Start(ctx, opts)
	if err != nil {
		t.Fatalf("start stack: %v", err)
	}
	t.Cleanup(s.Close)
	return &env{t: t, url: s.URL, mail: mail, http: &http.Client{Timeout: 30 * time.Second}, db: vars["DATABASE_URL"], targets: s.Targets}
}

func itoa(n int) string { return strconv.Itoa(n) }

// reply is a decoded REST answer.
type reply struct {
	Status int
	Body   map[string]any
	Raw    string
	Header http.Header
}

func (r reply) str(key string) string {
	s, _ := r.Body[key].(string)
	return s
}

func (r reply) detail() string { return r.str("detail") }

// call sends a REST request under /app/backend/api/v1. body may be nil, a string
// (sent raw) or any JSON-encodable value. Headers come in pairs.
func (e *env) call(method, path string, body any, headers ...string) reply {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, e.url+"/app/backend/api/v1"+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := e.http.Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	r := reply{Status: resp.StatusCode, Raw: string(raw), Header: resp.Header}
	_ = json.Unmarshal(raw, &r.Body)
	return r
}

func bearer(token string) []string { return []string{"Authorization", "Bearer " + token} }

// code waits for the next code e-mail to addr (its subject begins "รหัส")
// and returns the 6-digit code in it. Other mail may come in between, as
// mail is sent after the answer: security notices, and receipts, whose
// numbers (RC2569-000001) hold six digits too: they are skipped.
func (e *env) code(addr string) string {
	e.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		m, err := e.mail.WaitFor(addr, time.Until(deadline))
		if err != nil {
			e.t.Fatalf("no e-mail with a code to %s: %v", addr, err)
		}
		if c := smtptest.ExtractCode(m.Text); c != "" && strings.HasPrefix(m.Subject, "รหัส") {
			return c
		}
	}
}

func expect(t *testing.T, r reply, status int, what string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("%s: status %d, want %d; body %s", what, r.Status, status, r.Raw)
	}
}

func expectDetail(t *testing.T, r reply, status int, contains string) {
	t.Helper()
	expect(t, r, status, contains)
	if !strings.Contains(r.detail(), contains) {
		t.Fatalf("detail %q does not contain %q (body %s)", r.detail(), contains, r.Raw)
	}
	if r.str("kind") == "" || r.str("reason") == "" {
		t.Fatalf("error without kind and reason: %s", r.Raw)
	}
}

// expectReason checks an error's status and its machine kind and reason
// (what the app chooses its Thai message by).
func expectReason(t *testing.T, r reply, status int, kind, reason string) {
	t.Helper()
	expect(t, r, status, reason)
	if r.str("kind") != kind || r.str("reason") != reason {
		t.Fatalf("kind, reason = %q, %q; want %q, %q (body %s)", r.str("kind"), r.str("reason"), kind, reason, r.Raw)
	}
}

// registerVerified creates an active account and returns its tokens.
func (e *env) registerVerified(username, email, password string) reply {
	e.t.Helper()
	r := e.call("POST", "/register", map[string]string{"username": username, "email": email, "password": password, "name": "ทดสอบ " + username})
	expect(e.t, r, 200, "register")
	v := e.call("POST", "/verify-otp/?email="+email+"&otp="+e.code(email), nil)
	expect(e.t, v, 200, "verify-otp")
	return v
}

func (e *env) login(username, password string) reply {
	e.t.Helper()
	r := e.call("POST", "/login", map[string]string{"username": username, "password": password})
	expect(e.t, r, 200, "login "+username)
	return r
}
