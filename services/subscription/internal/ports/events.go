package ports

import (
	"context"
	"fmt"
	"net/mail"

	authv1 "bidradar/gen/auth/v1"
	"bidradar/pkg/events"
	"bidradar/services/subscription/internal/app"
)

// Events turns other services' events into use-case calls (a typed
// handler each, for events.On). An event that names no user and address is
// permanent: it is terminated (and dead-lettered), never retried.
type Events struct{ app *app.App }

// NewEvents returns the event handlers.
func NewEvents(a *app.App) *Events { return &Events{app: a} }

// EmailChanged handles auth.v1.UserEmailChanged: a user moved to a new
// e-mail address.
func (e *Events) EmailChanged(ctx context.Context, ev *authv1.UserEmailChanged, m events.Meta) error {
	eventID := m.EventID
	addr, err := mail.ParseAddress(ev.GetEmail())
	if ev.GetUserId() == "" || eventID == "" || ev.GetOccurredAt() == nil || err != nil || addr.Address != ev.GetEmail() {
		return fmt.Errorf("user.email_changed: %w: user %q, address %q", events.ErrPermanent, ev.GetUserId(), ev.GetEmail())
	}
	return e.app.EmailChanged(ctx, eventID, ev.GetUserId(), ev.GetEmail(), ev.GetOccurredAt().AsTime())
}
