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

// DeliverMailHandler sends up to limit queued messages that are due by the
// service's clock (each leased to this caller while it is sent, so replicas
// share the queue) and returns how many it handled.
type DeliverMailHandler struct{ c *core }

// Handle runs the use case.
func (h DeliverMailHandler) Handle(ctx context.Context, limit int) (int, error) {
	// A failed send is kept with its error and retried with back-off.
	return h.c.outbox.DeliverDue(ctx, limit, h.c.now(), h.c.transport.Send)
}
