package app

import (
	"context"
)

// SessionEndedHandler tells whether the session an access token names has
// ended (logout, password reset, reuse detection, expiry): the service's
// own user calls refuse such a token at once, where other services learn
// of it from the auth.v1.session.ended event.
type SessionEndedHandler struct{ c *core }

// Handle runs the use case.
func (h SessionEndedHandler) Handle(ctx context.Context, familyID string) (bool, error) {
	return h.c.store.FamilyEnded(ctx, familyID, h.c.now())
}

// CleanupHandler deletes what can no longer be used: codes past the day
// their throttles look back on, expired LINE states and link requests,
// sessions ended more than a day ago. Safe on every replica at once.
type CleanupHandler struct{ c *core }

// Handle runs the use case.
func (h CleanupHandler) Handle(ctx context.Context) error {
	return h.c.store.Cleanup(ctx, h.c.now())
}
