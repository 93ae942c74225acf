package authn_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"bidradar/pkg/access"
	"bidradar/pkg/apperr"
	"bidradar/pkg/authn"
)

func TestTokenFromRequest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		header http.Header
		want   string
	}{
		{"none", http.Header{}, ""},
		{"bearer", http.Header{"Authorization": {"Bearer abc"}}, "abc"},
		{"bearer lower-case scheme", http.Header{"Authorization": {"bearer abc"}}, "abc"},
		{"basic is ignored", http.Header{"Authorization": {"Basic abc"}}, ""},
		{"empty bearer falls back to cookie", http.Header{"Authorization": {"Bearer "}, "Cookie": {"access_token=c1"}}, "c1"},
		{"bearer wins over cookie", http.Header{"Authorization": {"Bearer abc"}, "Cookie": {"access_token=c1"}}, "abc"},
		{"cookie among others", http.Header{"Cookie": {"theme=dark; access_token=c1; x=y"}}, "c1"},
		{"malformed pair skipped", http.Header{"Cookie": {"bad\x01=1; access_token=c1"}}, "c1"},
		{"gateway cookie", http.Header{"Grpcgateway-Cookie": {"access_token=g1; refresh_token=r"}}, "g1"},
		{"cookie wins over gateway cookie", http.Header{"Cookie": {"access_token=c1"}, "Grpcgateway-Cookie": {"access_token=g1"}}, "c1"},
		{"other cookies only", http.Header{"Cookie": {"refresh_token=r"}}, ""},
		{"production __Host- cookie first", http.Header{"Cookie": {"access_token=plain; __Host-access_token=h1"}}, "h1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := authn.TokenFromRequest(tt.header); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// In production only the __Host- cookie counts: a plain "access_token" can be
// planted by a sibling subdomain or a plain-http page (the browser only
// guards the prefixed name), so it must not sign anyone in.
func TestSecureCookiesOnly(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		header http.Header
		want   string
	}{
		{"plain cookie ignored", http.Header{"Cookie": {"access_token=plain"}}, ""},
		{"plain gateway cookie ignored", http.Header{"Grpcgateway-Cookie": {"access_token=plain"}}, ""},
		{"__Host- cookie", http.Header{"Cookie": {"access_token=plain; __Host-access_token=h1"}}, "h1"},
		{"__Host- gateway cookie", http.Header{"Grpcgateway-Cookie": {"__Host-access_token=g1"}}, "g1"},
		{"bearer", http.Header{"Authorization": {"Bearer abc"}, "Cookie": {"access_token=plain"}}, "abc"},
	} {
		if got := authn.TokenFromHeader(tt.header, true); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}

	now := time.Now()
	c := claims()
	c.IssuedAt, c.ExpiresAt = now, now.Add(15*time.Minute)
	valid := sign(t, c)
	ic := authn.NewInterceptor(verifier(), access.Policy{privateProc: {Audience: access.User}}, authn.Admins{}, authn.SecureCookiesOnly())
	srv := httptest.NewServer(connect.NewUnaryHandler(privateProc, whoAmI, connect.WithInterceptors(ic)))
	t.Cleanup(srv.Close)
	client := connect.NewClient[wrapperspb.StringValue, wrapperspb.StringValue](srv.Client(), srv.URL+privateProc)
	call := func(cookie string) (string, error) {
		req := connect.NewRequest(wrapperspb.String(""))
		req.Header().Set("Cookie", cookie)
		res, err := client.CallUnary(context.Background(), req)
		if err != nil {
			return "", err
		}
		return res.Msg.GetValue(), nil
	}
	if _, err := call("access_token=" + valid); connect.CodeOf(err) != connect.CodeUnauthenticated {
		t.Fatalf("a valid token in the plain cookie: %v, want unauthenticated", err)
	}
	if who, err := call("__Host-access_token=" + valid); err != nil || who != "u-1" {
		t.Fatalf("the __Host- cookie: %q, %v", who, err)
	}
}

func TestRequire(t *testing.T) {
	t.Parallel()
	_, err := authn.Require(context.Background())
	if !errors.Is(err, authn.ErrAuthRequired) || apperr.KindOf(err) != apperr.Unauthenticated {
		t.Fatalf("err = %v", err)
	}
	c, err := authn.Require(authn.WithClaims(context.Background(), claims()))
	if err != nil || c.UserID != "u-1" {
		t.Fatalf("Require = %+v, %v", c, err)
	}
}

const (
	privateProc  = "/test.v1.TestService/Private"
	publicProc   = "/test.v1.TestService/Public"
	internalProc = "/test.v1.TestService/Internal"
	adminProc    = "/test.v1.TestService/Admin"
	unruledProc  = "/test.v1.TestService/Unruled"
)

// whoAmI answers with the caller's user id, or "anonymous", and "@service"
// after it for a verified calling service.
func whoAmI(ctx context.Context, _ *connect.Request[wrapperspb.StringValue]) (*connect.Response[wrapperspb.StringValue], error) {
	who := "anonymous"
	if c, ok := authn.FromContext(ctx); ok {
		who = c.UserID
	}
	if s, ok := authn.ServiceFromContext(ctx); ok {
		who += "@" + s.Caller
	}
	return connect.NewResponse(wrapperspb.String(who)), nil
}

func TestInterceptor(t *testing.T) {
	t.Parallel()
	// Tokens signed "now" so the interceptor's real clock accepts them.
	now := time.Now()
	c := claims()
	c.IssuedAt, c.ExpiresAt = now, now.Add(15*time.Minute)
	valid := sign(t, c)
	c.IssuedAt, c.ExpiresAt = now.Add(-time.Hour), now.Add(-time.Minute)
	expired := sign(t, c)

	policy := access.Policy{
		privateProc:  {Audience: access.User},
		publicProc:   {Audience: access.Public},
		internalProc: {Audience: access.Internal},
		adminProc:    {Audience: access.Admin},
	}
	key, _ := authn.NewServiceKey([]byte("interceptor-tests-service-key-32b"))
	ic := authn.NewInterceptor(verifier(), policy, authn.ParseAdmins("ops@bidradar.test"), authn.WithServiceKey(key))
	svc, _ := key.Sign("projects", "test.v1.TestService", now)
	svcElsewhere, _ := key.Sign("projects", "other.v1.OtherService", now)
	svcExpired, _ := key.Sign("projects", "test.v1.TestService", now.Add(-2*time.Minute))
	otherKey, _ := authn.NewServiceKey([]byte("another-service-key-another-key-3"))
	svcForged, _ := otherKey.Sign("projects", "test.v1.TestService", now)
	const onlyServices = "This call is for BidRadar services only"
	c.Email = "ops@bidradar.test"
	c.IssuedAt, c.ExpiresAt = now, now.Add(15*time.Minute)
	operator := sign(t, c)
	mux := http.NewServeMux()
	for _, p := range []string{privateProc, publicProc, internalProc, adminProc, unruledProc} {
		mux.Handle(p, connect.NewUnaryHandler(p, whoAmI, connect.WithInterceptors(ic)))
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	tests := []struct {
		name    string
		proc    string
		header  http.Header
		want    string
		code    connect.Code
		message string
	}{
		{"private bearer", privateProc, http.Header{"Authorization": {"Bearer " + valid}}, "u-1", 0, ""},
		{"private cookie", privateProc, http.Header{"Cookie": {"access_token=" + valid}}, "u-1", 0, ""},
		{"private gateway cookie", privateProc, http.Header{"Grpcgateway-Cookie": {"access_token=" + valid}}, "u-1", 0, ""},
		{"private missing", privateProc, http.Header{}, "", connect.CodeUnauthenticated, "Authentication required"},
		{"private expired", privateProc, http.Header{"Authorization": {"Bearer " + expired}}, "", connect.CodeUnauthenticated, "Could not validate credentials"},
		{"private garbage", privateProc, http.Header{"Authorization": {"Bearer x.y.z"}}, "", connect.CodeUnauthenticated, "Could not validate credentials"},
		{"public missing", publicProc, http.Header{}, "anonymous", 0, ""},
		{"public bad token ignored", publicProc, http.Header{"Authorization": {"Bearer " + expired}}, "anonymous", 0, ""},
		{"public valid", publicProc, http.Header{"Authorization": {"Bearer " + valid}}, "u-1", 0, ""},
		{"internal without token", internalProc, http.Header{}, "", connect.CodeUnauthenticated, onlyServices},
		{"internal with a user's token only", internalProc, http.Header{"Authorization": {"Bearer " + valid}}, "", connect.CodeUnauthenticated, onlyServices},
		{"internal with a service token", internalProc, http.Header{authn.ServiceTokenHeader: {svc}}, "anonymous@projects", 0, ""},
		{"internal for a user", internalProc, http.Header{authn.ServiceTokenHeader: {svc}, "Authorization": {"Bearer " + valid}}, "u-1@projects", 0, ""},
		{"internal with an access token as service token", internalProc, http.Header{authn.ServiceTokenHeader: {valid}}, "", connect.CodeUnauthenticated, onlyServices},
		{"internal with another service's token", internalProc, http.Header{authn.ServiceTokenHeader: {svcElsewhere}}, "", connect.CodeUnauthenticated, onlyServices},
		{"internal with an expired service token", internalProc, http.Header{authn.ServiceTokenHeader: {svcExpired}}, "", connect.CodeUnauthenticated, onlyServices},
		{"internal with a forged service token", internalProc, http.Header{authn.ServiceTokenHeader: {svcForged}}, "", connect.CodeUnauthenticated, onlyServices},
		{"a service token is no access token", privateProc, http.Header{"Authorization": {"Bearer " + svc}}, "", connect.CodeUnauthenticated, "Could not validate credentials"},
		{"public ignores a service token", publicProc, http.Header{authn.ServiceTokenHeader: {svc}}, "anonymous", 0, ""},
		{"admin missing", adminProc, http.Header{}, "", connect.CodeUnauthenticated, "Authentication required"},
		{"admin as a user", adminProc, http.Header{"Authorization": {"Bearer " + valid}}, "", connect.CodePermissionDenied, "Admin access required"},
		{"admin as an operator", adminProc, http.Header{"Authorization": {"Bearer " + operator}}, "u-1", 0, ""},
		{"no rule is refused", unruledProc, http.Header{"Authorization": {"Bearer " + operator}}, "", connect.CodePermissionDenied, "Access denied"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			client := connect.NewClient[wrapperspb.StringValue, wrapperspb.StringValue](srv.Client(), srv.URL+tt.proc)
			req := connect.NewRequest(wrapperspb.String(""))
			for k, vs := range tt.header {
				for _, v := range vs {
					req.Header().Add(k, v)
				}
			}
			res, err := client.CallUnary(context.Background(), req)
			if tt.code != 0 {
				var ce *connect.Error
				if !errors.As(err, &ce) || ce.Code() != tt.code || ce.Message() != tt.message {
					t.Fatalf("err = %v, want %v %q", err, tt.code, tt.message)
				}
				if got, want := ce.Meta().Get(apperr.MetaHTTPCode), map[connect.Code]string{connect.CodeUnauthenticated: "401", connect.CodePermissionDenied: "403"}[tt.code]; got != want {
					t.Fatalf("x-http-code = %q", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Msg.GetValue() != tt.want {
				t.Fatalf("caller = %q, want %q", res.Msg.GetValue(), tt.want)
			}
		})
	}
}
