package webhookpost_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"bidradar/services/notification/internal/adapters/webhookpost"
)

// In production the connection itself is refused for a non-public address,
// whatever the URL said at registration (a name may resolve inside later):
// the refusal happens before any packet is sent.
func TestProductionRefusesNonPublicAtDial(t *testing.T) {
	c := webhookpost.New(true)
	for _, host := range []string{
		"127.0.0.1", "10.0.0.1", "100.64.0.1", "100.127.255.254", "169.254.169.254", "0.0.0.1",
		"[::1]", "[fd00::1]", "[fe80::1]", "[::ffff:10.0.0.1]", "[::ffff:100.64.0.1]", "[64:ff9b::a00:1]",
	} {
		status, err := c.Post(context.Background(), "https://"+host+":443/hook", nil, []byte(`{}`))
		if err == nil || status != 0 || !strings.Contains(err.Error(), "is not public") {
			t.Errorf("%s: status %d, err %v; want a refusal before connecting", host, status, err)
		}
	}
	// A name resolving to the loopback is refused after DNS.
	if _, err := c.Post(context.Background(), "http://localhost:9/hook", nil, nil); err == nil || !strings.Contains(err.Error(), "is not public") {
		t.Errorf("localhost: %v", err)
	}
}

func TestPostsOutsideProduction(t *testing.T) {
	var got http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	status, err := webhookpost.New(false).Post(context.Background(), srv.URL, map[string]string{"X-BidRadar-Delivery": "d1"}, []byte(`{}`))
	if err != nil || status != http.StatusNoContent || got.Get("X-BidRadar-Delivery") != "d1" || got.Get("Content-Type") != "application/json" {
		t.Fatalf("status %d, err %v, headers %v", status, err, got)
	}
}
