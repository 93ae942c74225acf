package authn

import (
	"context"
	"net/http"
	"strings"
	"time"

	"connectrpc.com/connect"

	"bidradar/pkg/access"
	"bidradar/pkg/apperr"
)

// Errors returned to clients, with the FastAPI-compatible messages.
var (
	ErrAuthRequired       = apperr.New(apperr.Unauthenticated, "authentication-required", "Authentication required")
	ErrInvalidCredentials = apperr.New(apperr.Unauthenticated, "invalid-credentials", "Could not validate credentials")
)

type claimsKey struct{}

// WithClaims returns ctx carrying c.
func WithClaims(ctx context.Context, c Claims) context.Context {
	return context.WithValue(ctx, claimsKey{}, c)
}

// FromContext returns the verified claims of the caller, if any.
func FromContext(ctx context.Context) (Claims, bool) {
	c, ok := ctx.Value(claimsKey{}).(Claims)
	return c, ok
}

// Require returns the caller's claims or ErrAuthRequired, for use cases
// that need a user even when their procedure is public.
func Require(ctx context.Context) (Claims, error) {
	c, ok := FromContext(ctx)
	if !ok {
		return Claims{}, ErrAuthRequired
	}
	return c, nil
}

// CookieName is the cookie holding the access token in browsers.
const CookieName = "access_token"

// HostCookieName is the access cookie in production: a browser keeps a
// "__Host-" cookie only when it is Secure, for Path=/ and without Domain, so
// no sibling subdomain or plain-http page can plant it.
const HostCookieName = "__Host-" + CookieName

// TokenFromRequest returns the access token of a request: from
// "Authorization: Bearer <t>", else the access_token cookie, else the
// cookie line the grpc-gateway forwards as "Grpcgateway-Cookie" metadata.
// It returns "" when there is none.
func TokenFromRequest(h http.Header) string { return TokenFromHeader(h, false) }

// TokenFromHeader is TokenFromRequest; with secureOnly (production) the
// unprefixed access_token cookie is ignored and only HostCookieName counts.
func TokenFromHeader(h http.Header, secureOnly bool) string {
	if auth := h.Get("Authorization"); auth != "" {
		scheme, tok, ok := strings.Cut(auth, " ")
		if ok && strings.EqualFold(scheme, "Bearer") {
			if tok = strings.TrimSpace(tok); tok != "" {
				return tok
			}
		}
	}
	names := []string{HostCookieName, CookieName}
	if secureOnly {
		names = names[:1]
	}
	for _, name := range []string{"Cookie", "Grpcgateway-Cookie"} {
		if lines := h.Values(name); len(lines) > 0 {
			// net/http's lenient cookie parser skips malformed pairs
			// instead of rejecting the whole line.
			r := http.Request{Header: http.Header{"Cookie": lines}}
			for _, n := range names {
				if c, err := r.Cookie(n); err == nil && c.Value != "" {
					return c.Value
				}
			}
		}
	}
	return ""
}

// NewInterceptor returns a handler-side interceptor that enforces the
// access rules declared in the protos (pkg/access) and puts the verified
// caller's claims into the context:
//
//   - internal procedures: a valid service token (ServiceTokenHeader) for
//     this service is required, checked with the key of WithServiceKey
//     (none: every internal call is refused); its caller is in the context
//     (ServiceFromContext). A user's access token is optional beside it,
//     for the calls made on a user's behalf (those call Require);
//   - public procedures: a token is optional, a bad one is ignored;
//   - user procedures: a valid access token is required;
//   - admin procedures: a valid token of an operator named in admins;
//   - a procedure the policy does not know is refused.
//
// Client-side calls pass through untouched.
func NewInterceptor(v *Verifier, policy access.Policy, admins Admins, opts ...InterceptorOption) connect.Interceptor {
	i := &interceptor{v: v, policy: policy, admins: admins, now: time.Now}
	for _, o := range opts {
		o(i)
	}
	return i
}

// InterceptorOption configures NewInterceptor.
type InterceptorOption func(*interceptor)

// SecureCookiesOnly makes the interceptor read only the __Host- access
// cookie (APP_ENV=production, where the auth service sets no other).
func SecureCookiesOnly() InterceptorOption {
	return func(i *interceptor) { i.secureOnly = true }
}

// WithServiceKey sets the key that internal procedures' service tokens are
// verified with (SERVICE_TOKEN_KEY).
func WithServiceKey(k *ServiceKey) InterceptorOption {
	return func(i *interceptor) { i.serviceKey = k }
}

// ErrNoAccessRule answers a procedure without a declared audience (never
// reached when the service was started through pkg/access).
var ErrNoAccessRule = apperr.New(apperr.PermissionDenied, "no-access-rule", "Access denied")

type interceptor struct {
	v          *Verifier
	policy     access.Policy
	admins     Admins
	now        func() time.Time
	secureOnly bool
	serviceKey *ServiceKey
}

// service checks the service token of an internal call to procedure.
func (i *interceptor) service(ctx context.Context, procedure string, h http.Header) (context.Context, error) {
	tok := h.Get(ServiceTokenHeader)
	if tok == "" {
		return ctx, apperr.ToConnect(ErrServiceTokenRequired)
	}
	name, ok := access.ServiceName(procedure)
	if !ok || i.serviceKey == nil {
		return ctx, apperr.ToConnect(ErrInvalidServiceToken)
	}
	c, err := i.serviceKey.Verify(tok, name, i.now())
	if err != nil {
		return ctx, apperr.ToConnect(ErrInvalidServiceToken)
	}
	return WithService(ctx, c), nil
}

func (i *interceptor) authenticate(ctx context.Context, procedure string, h http.Header) (context.Context, error) {
	rule, ok := i.policy.Rule(procedure)
	if !ok {
		return ctx, apperr.ToConnect(ErrNoAccessRule)
	}
	if rule.Audience == access.Internal {
		var err error
		if ctx, err = i.service(ctx, procedure, h); err != nil {
			return ctx, err
		}
	}
	if kt := h.Get(TeamKeyHeader); kt != "" {
		return i.teamKey(ctx, procedure, rule, kt)
	}
	optional := rule.Audience == access.Public || rule.Audience == access.Internal
	tok := TokenFromHeader(h, i.secureOnly)
	if tok == "" {
		if optional {
			return ctx, nil
		}
		return ctx, apperr.ToConnect(ErrAuthRequired)
	}
	c, err := i.v.Verify(tok, i.now())
	if err != nil {
		if optional {
			return ctx, nil
		}
		return ctx, apperr.ToConnect(ErrInvalidCredentials)
	}
	if rule.Audience == access.Admin && !i.admins.Allows(c.Email) {
		return ctx, apperr.ToConnect(ErrAdminOnly)
	}
	return WithClaims(ctx, c), nil
}

// teamKey admits a call the gateway made with a verified team API key: only
// to a procedure that accepts keys, with the scope it needs; the call then
// has no user (docs/architecture.md#teams).
func (i *interceptor) teamKey(ctx context.Context, procedure string, rule access.Rule, token string) (context.Context, error) {
	if rule.TeamKey == access.KeyRefused || rule.Audience == access.Internal || rule.Audience == access.Admin {
		return ctx, apperr.ToConnect(ErrKeyNotAccepted)
	}
	name, ok := access.ServiceName(procedure)
	if !ok || i.serviceKey == nil {
		return ctx, apperr.ToConnect(ErrInvalidCredentials)
	}
	k, err := i.serviceKey.VerifyTeamKey(token, name, i.now())
	if err != nil {
		return ctx, apperr.ToConnect(ErrInvalidCredentials)
	}
	if !k.Allows(rule.TeamKey) {
		return ctx, apperr.ToConnect(ErrKeyScope)
	}
	return WithTeamKey(ctx, k), nil
}

func (i *interceptor) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		if req.Spec().IsClient {
			return next(ctx, req)
		}
		ctx, err := i.authenticate(ctx, req.Spec().Procedure, req.Header())
		if err != nil {
			return nil, err
		}
		return next(ctx, req)
	}
}

func (i *interceptor) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return next
}

func (i *interceptor) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return func(ctx context.Context, conn connect.StreamingHandlerConn) error {
		ctx, err := i.authenticate(ctx, conn.Spec().Procedure, conn.RequestHeader())
		if err != nil {
			return err
		}
		return next(ctx, conn)
	}
}

// RequireUserID is the signed-in user's id, or ErrAuthRequired.
func RequireUserID(ctx context.Context) (string, error) {
	c, err := Require(ctx)
	return c.UserID, err
}
