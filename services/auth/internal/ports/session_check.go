package ports

import (
	"context"

	"connectrpc.com/connect"

	"bidradar/pkg/access"
	"bidradar/pkg/authn"
	"bidradar/services/auth/internal/domain"
)

// SessionEnded reports whether a refresh-token family was revoked or has expired.
type SessionEnded func(ctx context.Context, familyID string) (bool, error)

// RejectEndedSessions rejects access tokens whose session was ended (logout,
// password reset, reuse detection) on the auth service's own calls, so that
// /users/me answers 401 right after logout. It runs after authn's interceptor.
// Other services verify tokens offline and accept them until they expire (15 min).
// Only procedures that require a user (policy: user or admin) are checked.
func RejectEndedSessions(ended SessionEnded, policy access.Policy) connect.Interceptor {
	return connect.UnaryInterceptorFunc(func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			if r, _ := policy.Rule(req.Spec().Procedure); r.Audience != access.User && r.Audience != access.Admin {
				return next(ctx, req)
			}
			if c, ok := authn.FromContext(ctx); ok {
				over, err := ended(ctx, authn.FamilyID(c))
				if err != nil {
					return nil, err
				}
				if over {
					return nil, domain.ErrSessionRevoked
				}
			}
			return next(ctx, req)
		}
	})
}
