package stripepay_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"bidradar/pkg/apperr"
	"bidradar/pkg/testutil/stripemock"
	"bidradar/services/subscription/internal/adapters/stripepay"
	"bidradar/services/subscription/internal/domain"
)

// Against stripe-mock (Stripe's own OpenAPI mock), the calls that stop a
// replaced card subscription are accepted as Stripe's API defines them.
func TestStopCallsAgainstStripeMock(t *testing.T) {
	p := stripepay.New("sk_test_mock", whsec, stripemock.Start(t), "https://bidradar.example")
	ctx := context.Background()
	if err := p.CancelNow(ctx, "sub_mock"); err != nil {
		t.Fatalf("cancel now: %v", err)
	}
	if err := p.SetCancelAtPeriodEnd(ctx, "sub_mock", true); err != nil {
		t.Fatalf("cancel at period end: %v", err)
	}
}

// fakeStripe answers as Stripe does for subscriptions in given states
// (stripe-mock keeps no state, so it cannot say "cancelled already").
func fakeStripe(t *testing.T) (*stripepay.Provider, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var seen []string
	status := map[string]string{"sub_cancelled": "canceled", "sub_active": "active"}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.Path)
		mu.Unlock()
		id := r.URL.Path[len("/v1/subscriptions/"):]
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Stripe-Should-Retry", "false")
		st, known := status[id]
		switch {
		case id == "sub_down":
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`{"error":{"type":"api_error","message":"try again"}}`))
		case !known:
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"error":{"code":"resource_missing","type":"invalid_request_error","param":"id","message":"No such subscription: '` + id + `'"}}`))
		case r.Method == http.MethodGet:
			_, _ = w.Write([]byte(`{"id":"` + id + `","object":"subscription","status":"` + st + `"}`))
		case st == "canceled":
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error":{"type":"invalid_request_error","message":"A canceled subscription can only update its cancellation_details and metadata."}}`))
		default: // an active subscription refusing a request (a bad parameter, say)
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error":{"type":"invalid_request_error","message":"Invalid request"}}`))
		}
	}))
	t.Cleanup(srv.Close)
	return stripepay.New("sk_test_fake", whsec, srv.URL, ""), func() []string {
		mu.Lock()
		defer mu.Unlock()
		out := seen
		seen = nil
		return out
	}
}

// A subscription cancelled already or unknown answers ErrProviderSubGone (a
// retried stop is done); an outage or another refusal does not. Either way
// the error stays the Unavailable one users see.
func TestStopAnswersGoneWhenCancelledAlready(t *testing.T) {
	p, seen := fakeStripe(t)
	ctx := context.Background()
	for _, c := range []struct {
		name string
		call func() error
		gone bool
		reqs int
	}{
		{"cancel a cancelled one (resource_missing)", func() error { return p.CancelNow(ctx, "sub_gone") }, true, 1},
		{"period end on a cancelled one", func() error { return p.SetCancelAtPeriodEnd(ctx, "sub_cancelled", true) }, true, 2},
		{"period end on an unknown one", func() error { return p.SetCancelAtPeriodEnd(ctx, "sub_gone", true) }, true, 1},
		{"an active one refuses", func() error { return p.SetCancelAtPeriodEnd(ctx, "sub_active", true) }, false, 2},
		{"Stripe down", func() error { return p.CancelNow(ctx, "sub_down") }, false, 1},
	} {
		err := c.call()
		if err == nil {
			t.Fatalf("%s: no error", c.name)
		}
		if errors.Is(err, domain.ErrProviderSubGone) != c.gone {
			t.Errorf("%s: gone = %v, want %v (%v)", c.name, !c.gone, c.gone, err)
		}
		if apperr.KindOf(err) != apperr.Unavailable || !errors.Is(err, domain.ErrNoProvider) {
			t.Errorf("%s: %v, want the payments-unavailable error", c.name, err)
		}
		if got := seen(); len(got) != c.reqs {
			t.Errorf("%s: requests %v, want %d", c.name, got, c.reqs)
		}
	}
}
