package ports

import (
	"context"
	"fmt"
	"net/mail"

	"google.golang.org/protobuf/proto"

	authv1 "bidradar/gen/auth/v1"
	"bidradar/pkg/events"
	"bidradar/services/subscription/internal/app"
)

// SubjectEmailChanged is the event this service consumes: a user moved to
// a new e-mail address.
const SubjectEmailChanged = "auth.v1.user.email_changed"

// Events decodes other services' events into use-case calls (an
// events.Handler each). A payload that does not decode or names no user and
// address is permanent: it is terminated (and dead-lettered), never retried.
type Events struct{ app *app.App }

// NewEvents returns the event handlers.
func NewEvents(a *app.App) *Events { return &Events{app: a} }

// EmailChanged handles auth.v1.user.email_changed.
func (e *Events) EmailChanged(ctx context.Context, _, eventID string, data []byte) error {
	var ev authv1.UserEmailChanged
	if err := proto.Unmarshal(data, &ev); err != nil {
		return fmt.Errorf("user.email_changed: %w: %v", events.ErrPermanent, err)
	}
	if eventID == "" {
		eventID = ev.GetEventId()
	}
	addr, err := mail.ParseAddress(ev.GetEmail())
	if ev.GetUserId() == "" || eventID == "" || ev.GetOccurredAt() == nil || err != nil || addr.Address != ev.GetEmail() {
		return fmt.Errorf("user.email_changed: %w: user %q, address %q", events.ErrPermanent, ev.GetUserId(), ev.GetEmail())
	}
	return e.app.EmailChanged(ctx, eventID, ev.GetUserId(), ev.GetEmail(), ev.GetOccurredAt().AsTime())
}
