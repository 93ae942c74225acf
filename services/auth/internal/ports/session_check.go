package ports

import (
	"context"

	"connectrpc.com/connect"

	"bidradar/pkg/authn"
	"bidradar/services/auth/internal/adapters/token"
	"bidradar/services/auth/internal/domain"
)

// SessionEnded reports whether a refresh-token family was revoked or has expired.
type SessionEnded func(ctx context.Context, familyID string) (bool, error)

// RejectEndedSessions rejects access tokens whose session was ended (logout,
// password reset, reuse detection) on the auth service's own calls, so that
// /users/me answers 401 right after logout. It runs after authn's interceptor.
// Other services verify tokens offline and accept them until they expire (15 min).
func RejectEndedSessions(ended SessionEnded) connect.Interceptor {
	return connect.UnaryInterceptorFunc(func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			if IsPublic(req.Spec().Procedure) {
				return next(ctx, req)
			}
			if c, ok := authn.FromContext(ctx); ok {
				over, err := ended(ctx, token.FamilyID(c))
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
