package runner

import (
	"context"
	"fmt"

	authv1 "bidradar/gen/auth/v1"
	"bidradar/pkg/events"
)

// ForgetUser erases or anonymises what a service holds of a user. It must be
// idempotent: an event may be delivered more than once.
type ForgetUser func(ctx context.Context, userID string) error

// ForgetConsumer is service's durable consumer "<service>-forget-users" of
// auth.v1.UserDeactivated (a user deleted their account; Thailand's PDPA:
// the right to erasure), which runs forget for each.
func ForgetConsumer(service string, forget ForgetUser) events.Consumer {
	return events.Durable(service+"-forget-users", events.On(DeactivatedHandler(forget)))
}

// DeactivatedHandler runs forget for the user of a UserDeactivated; one that
// names no user is permanent (dead-lettered, never retried).
func DeactivatedHandler(forget ForgetUser) func(context.Context, *authv1.UserDeactivated, events.Meta) error {
	return func(ctx context.Context, ev *authv1.UserDeactivated, _ events.Meta) error {
		if ev.GetUserId() == "" {
			return fmt.Errorf("user.deactivated: %w: no user", events.ErrPermanent)
		}
		return forget(ctx, ev.GetUserId())
	}
}
