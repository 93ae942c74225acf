package webhookpost_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"bidradar/services/notification/internal/adapters/webhookpost"
)

// Without the development flag the connection itself is refused for a
// non-public address, whatever the URL said at registration (a name may
// resolve inside later): the refusal happens before any packet is sent,
// and the user is told the address is not allowed, nothing more.
func TestRefusesNonPublicAtDial(t *testing.T) {
	c := webhookpost.New(false)
	for _, host := range []string{
		"127.0.0.1", "10.0.0.1", "100.64.0.1", "100.127.255.254", "169.254.169.254", "0.0.0.1",
		"[::1]", "[fd00::1]", "[fe80::1]", "[::ffff:10.0.0.1]", "[::ffff:100.64.0.1]", "[64:ff9b::a00:1]",
	} {
		status, err := c.Post(context.Background(), "https://"+host+":443/hook", nil, []byte(`{}`))
		if err == nil || status != 0 || err.Error() != "address not allowed" {
			t.Errorf("%s: status %d, err %v; want a refusal before connecting", host, status, err)
		}
	}
	// A name resolving to the loopback is refused after DNS.
	if _, err := c.Post(context.Background(), "http://localhost:9/hook", nil, nil); err == nil || err.Error() != "address not allowed" {
		t.Errorf("localhost: %v", err)
	}
}

// A failed delivery names its problem in a few words the app can show (and
// translate), never the raw dial, resolver or TLS error.
func TestFailuresNameTheProblem(t *testing.T) {
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refusedURL := "http://" + closed.Addr().String() + "/hook"
	closed.Close()
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(2 * time.Second):
		}
	}))
	defer slow.Close()
	plain := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer plain.Close()
	selfSigned := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer selfSigned.Close()
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) }))
	defer failing.Close()

	c := webhookpost.New(true)
	for _, tt := range []struct {
		name, url, want string
		status          int
		timeout         time.Duration
	}{
		{"nothing listens", refusedURL, "connection refused", 0, 0},
		{"no answer in time", slow.URL, "timed out", 0, 200 * time.Millisecond},
		{"TLS to a plain-http server", "https://" + plain.Listener.Addr().String() + "/hook", "TLS failed", 0, 0},
		{"a certificate nobody vouches for", selfSigned.URL, "TLS failed", 0, 0},
		{"no such host", "https://hooks.bidradar.invalid/hook", "address not found", 0, 0},
		{"an error status", failing.URL, "HTTP 503", 503, 0},
	} {
		ctx := context.Background()
		if tt.timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, tt.timeout)
			defer cancel()
		}
		status, err := c.Post(ctx, tt.url, nil, []byte(`{}`))
		if err == nil || err.Error() != tt.want || status != tt.status {
			t.Errorf("%s: status %d, err %v; want %d %q", tt.name, status, err, tt.status, tt.want)
		}
	}
}

func TestPostsWithTheDevelopmentFlag(t *testing.T) {
	var got http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	status, err := webhookpost.New(true).Post(context.Background(), srv.URL, map[string]string{"X-BidRadar-Delivery": "d1"}, []byte(`{}`))
	if err != nil || status != http.StatusNoContent || got.Get("X-BidRadar-Delivery") != "d1" || got.Get("Content-Type") != "application/json" {
		t.Fatalf("status %d, err %v, headers %v", status, err, got)
	}
}
