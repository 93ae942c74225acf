package authn

import (
	"context"
	"net/http"
	"strings"
	"time"

	"connectrpc.com/connect"

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

// TokenFromRequest returns the access token of a request: from
// "Authorization: Bearer <t>", else the access_token cookie, else the
// cookie line the grpc-gateway forwards as "Grpcgateway-Cookie" metadata.
// It returns "" when there is none.
func TokenFromRequest(h http.Header) string {
	if auth := h.Get("Authorization"); auth != "" {
		scheme, tok, ok := strings.Cut(auth, " ")
		if ok && strings.EqualFold(scheme, "Bearer") {
			if tok = strings.TrimSpace(tok); tok != "" {
				return tok
			}
		}
	}
	for _, name := range []string{"Cookie", "Grpcgateway-Cookie"} {
		if lines := h.Values(name); len(lines) > 0 {
			// net/http's lenient cookie parser skips malformed pairs
			// instead of rejecting the whole line.
			r := http.Request{Header: http.Header{"Cookie": lines}}
			if c, err := r.Cookie(CookieName); err == nil && c.Value != "" {
				return c.Value
			}
		}
	}
	return ""
}

// NewInterceptor returns a handler-side interceptor that verifies the
// caller's token and puts its claims into the context. isPublic reports
// procedures (e.g. "/auth.v1.AuthService/Login") that may be called without
// a token; on those a missing or bad token is ignored. nil means none is
// public. Client-side calls pass through untouched.
func NewInterceptor(v *Verifier, isPublic func(procedure string) bool) connect.Interceptor {
	if isPublic == nil {
		isPublic = func(string) bool { return false }
	}
	return &interceptor{v: v, isPublic: isPublic, now: time.Now}
}

type interceptor struct {
	v        *Verifier
	isPublic func(string) bool
	now      func() time.Time
}

func (i *interceptor) authenticate(ctx context.Context, procedure string, h http.Header) (context.Context, error) {
	public := i.isPublic(procedure)
	tok := TokenFromRequest(h)
	if tok == "" {
		if public {
			return ctx, nil
		}
		return ctx, apperr.ToConnect(ErrAuthRequired)
	}
	c, err := i.v.Verify(tok, i.now())
	if err != nil {
		if public {
			return ctx, nil
		}
		return ctx, apperr.ToConnect(ErrInvalidCredentials)
	}
	return WithClaims(ctx, c), nil
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
