package stack_test

import (
	"encoding/json"
	"io"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/gorilla/websocket"
	"github.com/rs/zerolog"

	"bidradar/pkg/testutil/natstest"
	"bidradar/pkg/testutil/pgtest"
)

// docs/product.md#session-and-connection and
// docs/product.md#base-path-and-transport: what the app shows when a service
// does not answer, and how long the client waits.
const (
	unavailable   = "Service is currently unavailable. Please try again later."
	clientTimeout = 15 * time.Second
	recoverWithin = 5 * time.Second
)

// faultProxy is a toxiproxy in front of upstream (host:port).
func faultProxy(t *testing.T, name, upstream string) *toxiproxy.Proxy {
	t.Helper()
	api := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(nil), zerolog.Nop())
	p := toxiproxy.NewProxy(api, name, "127.0.0.1:0", upstream)
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Stop)
	return p
}

// addLatency delays every byte both ways by d.
func addLatency(t *testing.T, p *toxiproxy.Proxy, d time.Duration) {
	t.Helper()
	for _, stream := range []string{"upstream", "downstream"} {
		spec := `{"name":"slow_` + stream + `","type":"latency","stream":"` + stream + `","attributes":{"latency":` + itoa(int(d.Milliseconds())) + `}}`
		if _, err := p.Toxics.AddToxicJson(strings.NewReader(spec)); err != nil {
			t.Fatal(err)
		}
	}
}

func removeLatency(t *testing.T, p *toxiproxy.Proxy) {
	t.Helper()
	for _, stream := range []string{"upstream", "downstream"} {
		if err := p.Toxics.RemoveToxic(t.Context(), "slow_"+stream); err != nil {
			t.Fatal(err)
		}
	}
}

// timed runs one request and fails when it took longer than the client waits.
func timed(t *testing.T, what string, f func() reply) reply {
	t.Helper()
	start := time.Now()
	r := f()
	if d := time.Since(start); d > clientTimeout {
		t.Errorf("%s took %v, over the client's %v", what, d.Round(time.Millisecond), clientTimeout)
	}
	return r
}

// socketAnswer opens the bell's WebSocket: "auth_success" when it streams,
// else the HTTP refusal of the upgrade as a reply.
func socketAnswer(t *testing.T, e *env, userID, tok string) (string, reply) {
	t.Helper()
	d := websocket.Dialer{HandshakeTimeout: clientTimeout}
	ws, resp, err := d.Dial("ws"+strings.TrimPrefix(e.url, "http")+"/ws/notifications/"+userID, nil)
	if err != nil {
		if resp == nil {
			return "", reply{Status: 599, Raw: err.Error()}
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		r := reply{Status: resp.StatusCode, Raw: string(b)}
		_ = json.Unmarshal(b, &r.Body)
		return "", r
	}
	defer ws.Close()
	if err := ws.WriteJSON(map[string]string{"type": "auth", "token": tok}); err != nil {
		return "", reply{Status: 599, Raw: err.Error()}
	}
	_ = ws.SetReadDeadline(time.Now().Add(clientTimeout))
	var m map[string]any
	if err := ws.ReadJSON(&m); err != nil {
		return "", reply{Status: 599, Raw: err.Error()}
	}
	typ, _ := m["type"].(string)
	return typ, reply{Status: 101}
}

// TestNATSDownOrSlow: with NATS gone or crawling, requests that need it (the
// bell's live socket) answer 503 with its message
// (docs/product.md#session-and-connection) within the client's 15 s; the rest
// of the API does not need it (events wait in the outbox) and keeps answering.
// Within 5 s of NATS being well again the socket streams, and a new bell event
// reaches it.
func TestNATSDownOrSlow(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	natsURL, err := url.Parse(natstest.Start(t))
	if err != nil {
		t.Fatal(err)
	}
	proxy := faultProxy(t, "nats", natsURL.Host)
	e := startStack(t, map[string]string{"NATS_URL": "nats://" + proxy.Listen, "DEMO_DATA": "5"})
	tok := e.registerVerified("natsfault", "natsfault@example.com", "long enough pass").str("access_token")
	a := bearer(tok)
	userID, _ := e.call("GET", "/users/me", nil, a...).Body["id"].(string)
	if typ, r := socketAnswer(t, e, userID, tok); typ != "auth_success" {
		t.Fatalf("socket before the fault: %q %d %s", typ, r.Status, r.Raw)
	}

	check := func(phase string) {
		t.Helper()
		typ, r := socketAnswer(t, e, userID, tok)
		if typ != "" || r.Status != 503 || r.detail() != unavailable {
			t.Errorf("%s: socket %q, HTTP %d %s; want 503 %q", phase, typ, r.Status, r.Raw, unavailable)
		}
		// What does not need NATS keeps working, events queued in the outbox.
		for _, c := range []struct {
			method, path string
			body         any
		}{
			{"GET", "/gen-infor?keyword=ถนน", nil},
			{"GET", "/users/me", nil},
			{"PATCH", "/userInterests/69099722203", map[string]any{"is_userLike": true}},
			{"POST", "/bell/notifications/test", nil},
		} {
			r := timed(t, phase+" "+c.method+" "+c.path, func() reply { return e.call(c.method, c.path, c.body, a...) })
			// A PATCH of a project the user never marked may answer 404.
			if ok := r.Status == 200 || c.method == "PATCH" && r.Status == 404; !ok {
				t.Errorf("%s: %s %s: %d %s", phase, c.method, c.path, r.Status, r.Raw)
			}
		}
	}
	recovered := func(phase string) {
		t.Helper()
		deadline := time.Now().Add(recoverWithin)
		for {
			typ, r := socketAnswer(t, e, userID, tok)
			if typ == "auth_success" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: socket not back %v after NATS: %q %d %s", phase, recoverWithin, typ, r.Status, r.Raw)
			}
			time.Sleep(100 * time.Millisecond)
		}
		// A new bell event travels the whole way again: outbox → NATS → socket.
		ws := dialSocket(t, e, userID, tok)
		if m := readSocket(t, ws); m["type"] != "auth_success" {
			t.Fatalf("%s: socket: %v", phase, m)
		}
		expect(t, e.call("POST", "/bell/notifications/test", nil, a...), 200, phase+": test notification")
		readSocketUntil(t, ws, "bell_notification", recoverWithin)
		ws.Close()
	}

	proxy.Stop()
	start := time.Now()
	check("NATS down")
	if err := proxy.Start(); err != nil {
		t.Fatal(err)
	}
	recovered("NATS back")
	t.Logf("NATS down phase: %v", time.Since(start).Round(time.Millisecond))

	addLatency(t, proxy, 20*time.Second)
	check("NATS slow (20 s each way)")
	removeLatency(t, proxy)
	recovered("NATS fast again")
}

// TestSlowDatabaseIs503WithinBudget puts 20 s of latency between the services
// and PostgreSQL: requests answer 503 with its message
// (docs/product.md#session-and-connection) before the client's 15 s run out,
// and answer normally within 5 s of the latency going away.
func TestSlowDatabaseIs503WithinBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dbURL, err := url.Parse(pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	proxy := faultProxy(t, "postgres", dbURL.Host)
	dbURL.Host = proxy.Listen
	e := startStack(t, map[string]string{"DATABASE_URL": dbURL.String(), "DEMO_DATA": "5"})
	tok := bearer(e.registerVerified("dbslow", "dbslow@example.com", "long enough pass").str("access_token"))
	probes := []struct{ method, path string }{
		{"GET", "/gen-infor?keyword=ถนน"},
		{"GET", "/users/me"},
		{"GET", "/userInterests/active"},
		{"GET", "/bell/notifications/unread-count"},
	}
	run := func(i int) reply {
		return e.call(probes[i].method, probes[i].path, nil, tok...)
	}
	for i := range probes {
		expect(t, run(i), 200, "before the fault")
	}

	addLatency(t, proxy, 20*time.Second)
	var wg sync.WaitGroup
	for i, p := range probes {
		wg.Add(1)
		go func() { // together: each waits out the budget
			defer wg.Done()
			start := time.Now()
			r := run(i)
			if d := time.Since(start); d > clientTimeout || r.Status != 503 || r.detail() != unavailable {
				t.Errorf("slow database: %s: %d %s after %v; want 503 %q within %v", p.path, r.Status, r.Raw, d.Round(time.Millisecond), unavailable, clientTimeout)
			}
		}()
	}
	wg.Wait()
	removeLatency(t, proxy)

	deadline := time.Now().Add(recoverWithin)
	for i := 0; i < len(probes); {
		if r := run(i); r.Status == 200 {
			i++
			continue
		} else if time.Now().After(deadline) {
			t.Fatalf("not recovered %v after the latency went: %s: %d %s", recoverWithin, probes[i].path, r.Status, r.Raw)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
