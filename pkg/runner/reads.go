package runner

import (
	"context"
	"net/http"

	"connectrpc.com/connect"

	"bidradar/pkg/authn"
	"bidradar/pkg/pgdb"
)

// Reads is the router of the service's read-only queries: on the replica
// of DATABASE_READ_URL when set (docs/architecture.md#beyond-one-machine),
// else on the primary. Services that read heavily (search, listings,
// details) run those reads through it; every other query uses the pool.
func (s *RPCServer) Reads() *pgdb.Reads { return s.reads }

// readsInterceptor gives each call a pgdb.Session: a user's call (not a
// service's, whose reads follow events and must see what they announce)
// may read on the replica, at or past the position of the user's last
// write, carried by the pgdb.LSNCookie; a call that wrote sets the cookie
// to the primary's position after it, so the user's next read, on any
// process, sees the write. secure (production) marks the cookie Secure.
func readsInterceptor(reads *pgdb.Reads, secure bool) connect.UnaryInterceptorFunc {
	return func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			if req.Spec().IsClient {
				return next(ctx, req)
			}
			h := req.Header()
			sess := pgdb.NewSession(h.Get(authn.ServiceTokenHeader) == "", lsnCookie(h))
			ctx = pgdb.WithSession(ctx, sess)
			resp, err := next(ctx, req)
			if err != nil || !sess.Wrote() || resp == nil {
				return resp, err
			}
			if lsn, lerr := reads.CurrentLSN(ctx); lerr == nil {
				c := http.Cookie{Name: pgdb.LSNCookie, Value: lsn, Path: "/", MaxAge: int(pgdb.LSNCookieMaxAge.Seconds()),
					HttpOnly: true, Secure: secure, SameSite: http.SameSiteLaxMode}
				resp.Header().Add("Set-Cookie", c.String())
			}
			return resp, err
		}
	}
}

// lsnCookie is the LSN cookie of a request, sent by a browser or
// forwarded by the grpc-gateway ("Grpcgateway-Cookie").
func lsnCookie(h http.Header) string {
	for _, name := range []string{"Cookie", "Grpcgateway-Cookie"} {
		if lines := h.Values(name); len(lines) > 0 {
			r := http.Request{Header: http.Header{"Cookie": lines}}
			if c, err := r.Cookie(pgdb.LSNCookie); err == nil {
				return c.Value
			}
		}
	}
	return ""
}
