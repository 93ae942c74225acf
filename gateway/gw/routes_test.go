package gw_test

import (
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"

	"bidradar/gateway/gw"
	"bidradar/gen/auth/v1/authv1connect"
	subscriptionv1 "bidradar/gen/subscription/v1"
	"bidradar/gen/subscription/v1/subscriptionv1connect"
	"bidradar/pkg/access"
	"bidradar/pkg/authn"
)

// The gateway reads each service's target from the variable its proto
// declares: a service added to proto/ needs no line here, and one whose
// variable is unset stops the start, named.
func TestConfigReadsTheDeclaredTargets(t *testing.T) {
	eps, err := access.Endpoints()
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"REALTIME_TARGET": "realtime:9006", "SERVICE_TOKEN_KEY": base64.StdEncoding.EncodeToString([]byte(strings.Repeat("k", 32)))}
	for _, e := range eps {
		env[e.TargetEnv] = strings.ToLower(strings.TrimSuffix(e.TargetEnv, "_TARGET")) + ":9000"
	}
	cfg, err := gw.ConfigFromEnv(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range eps {
		if cfg.Targets[e.Service] != env[e.TargetEnv] {
			t.Errorf("%s: target %q, want %s's %q", e.Service, cfg.Targets[e.Service], e.TargetEnv, env[e.TargetEnv])
		}
	}
	for _, e := range eps {
		without := map[string]string{}
		for k, v := range env {
			if k != e.TargetEnv {
				without[k] = v
			}
		}
		if _, err := gw.ConfigFromEnv(func(k string) string { return without[k] }); err == nil || !strings.Contains(err.Error(), e.TargetEnv) {
			t.Errorf("without %s: %v", e.TargetEnv, err)
		}
	}
	delete(env, "SERVICE_TOKEN_KEY")
	if _, err := gw.ConfigFromEnv(func(k string) string { return env[k] }); err == nil || !strings.Contains(err.Error(), "SERVICE_TOKEN_KEY") {
		t.Errorf("without SERVICE_TOKEN_KEY: %v", err)
	}
}

// recorder is every service at once: it answers any Connect call with an
// empty message and notes the service token each path arrived with.
type recorder struct {
	mu     sync.Mutex
	tokens map[string]string
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	r.tokens[req.URL.Path] = req.Header.Get(authn.ServiceTokenHeader)
	r.mu.Unlock()
	_, _ = io.Copy(io.Discard, req.Body)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte("{}"))
}

func (r *recorder) token(path string) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	tok, ok := r.tokens[path]
	return tok, ok
}

// Every service's Connect path prefix is forwarded to it, no other; a
// browser's call never carries a service token (one it sends is dropped),
// while the gateway's own calls of internal RPCs (the Stripe webhook, the
// calendar feed) carry the gateway's, addressed to the service called.
func TestRoutesAndServiceTokens(t *testing.T) {
	rec := &recorder{tokens: map[string]string{}}
	upstream := h2cServer(rec)
	t.Cleanup(upstream.Close)
	srv := newGatewayTo(t, "", strings.TrimPrefix(upstream.URL, "http://"))

	all, err := access.All()
	if err != nil {
		t.Fatal(err)
	}
	forged, _ := testKey.Sign("gateway", authv1connect.AuthServiceName, time.Now())
	for _, proc := range all.Procedures(func(r access.Rule) bool { return r.Audience != access.Internal && !r.PasswordHash }) {
		req, _ := http.NewRequest("POST", srv.URL+proc, strings.NewReader("{}"))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(authn.ServiceTokenHeader, forged)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		tok, reached := rec.token(proc)
		if !reached {
			t.Errorf("%s: not forwarded (%d)", proc, resp.StatusCode)
		} else if tok != "" {
			t.Errorf("%s: forwarded with a service token", proc)
		}
	}

	// The webhook: HandleProviderEvent, internal, with the gateway's token.
	req, _ := http.NewRequest("POST", srv.URL+"/app/backend/api/v1/payment/webhook/stripe", strings.NewReader(`{"id":"evt"}`))
	req.Header.Set("Stripe-Signature", "t=1,v1=x")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	tok, ok := rec.token(subscriptionv1connect.SubscriptionServiceHandleProviderEventProcedure)
	if !ok {
		t.Fatalf("webhook not forwarded (%d)", resp.StatusCode)
	}
	c, err := testKey.Verify(tok, subscriptionv1connect.SubscriptionServiceName, time.Now())
	if err != nil || c.Caller != "gateway" {
		t.Fatalf("webhook's service token: %+v %v", c, err)
	}
}

// Health checking and reflection are for the cluster and for teams that
// call the services directly: the gateway does not pass them on (nor any
// other service of no BidRadar proto).
func TestHealthAndReflectionAreNotPublic(t *testing.T) {
	rec := &recorder{tokens: map[string]string{}}
	upstream := h2cServer(rec)
	t.Cleanup(upstream.Close)
	srv := newGatewayTo(t, "", strings.TrimPrefix(upstream.URL, "http://"))
	for _, p := range []string{
		"/grpc.health.v1.Health/Check", "/grpc.health.v1.Health/Watch",
		"/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
		"/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
		"/other.v1.OtherService/Call",
	} {
		for _, ct := range []string{"application/grpc", "application/json"} {
			req, _ := http.NewRequest("POST", srv.URL+p, strings.NewReader("{}"))
			req.Header.Set("Content-Type", ct)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusNotFound {
				t.Errorf("%s (%s): %d, want 404", p, ct, resp.StatusCode)
			}
			if _, reached := rec.token(p); reached {
				t.Errorf("%s reached a service", p)
			}
		}
	}
}

// A call of an internal RPC without a valid service token is refused by
// the service itself: the authn interceptor every service runs.
func TestInternalRPCNeedsAServiceToken(t *testing.T) {
	policy, err := access.ForService(subscriptionv1connect.SubscriptionServiceName)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle(subscriptionv1connect.NewSubscriptionServiceHandler(subscriptionFake{},
		connect.WithInterceptors(authn.NewInterceptor(authn.NewVerifier(authn.StaticKeys{}), policy, authn.Admins{}, authn.WithServiceKey(testKey)))))
	upstream := h2cServer(mux)
	t.Cleanup(upstream.Close)
	srv := newGatewayTo(t, "", strings.TrimPrefix(upstream.URL, "http://"))

	// Through the gateway's webhook (its own token): served.
	req, _ := http.NewRequest("POST", srv.URL+"/app/backend/api/v1/payment/webhook/stripe", strings.NewReader(`{}`))
	req.Header.Set("Stripe-Signature", "t=1,v1=x")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("webhook: %d", resp.StatusCode)
	}
	// Directly, without a token: 401.
	direct := subscriptionv1connect.NewSubscriptionServiceClient(http.DefaultClient, upstream.URL)
	_, err = direct.HandleProviderEvent(context.Background(), connect.NewRequest(&subscriptionv1.HandleProviderEventRequest{}))
	if connect.CodeOf(err) != connect.CodeUnauthenticated {
		t.Fatalf("without a service token: %v", err)
	}
}

type subscriptionFake struct {
	subscriptionv1connect.UnimplementedSubscriptionServiceHandler
}

func (subscriptionFake) HandleProviderEvent(context.Context, *connect.Request[subscriptionv1.HandleProviderEventRequest]) (*connect.Response[subscriptionv1.HandleProviderEventResponse], error) {
	return connect.NewResponse(&subscriptionv1.HandleProviderEventResponse{}), nil
}
