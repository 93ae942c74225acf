package runner

import (
	"context"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"

	authv1 "bidradar/gen/auth/v1"
	"bidradar/pkg/events"
)

// SubjectUserDeactivated is published by auth when a user deletes their
// account (Thailand's PDPA: the right to erasure).
const SubjectUserDeactivated = "auth.v1.user.deactivated"

// ForgetUser erases or anonymises what a service holds of a user. It must be
// idempotent: an event may be delivered more than once.
type ForgetUser func(ctx context.Context, userID string) error

// OnUserDeactivated runs forget for every auth.v1.user.deactivated, through
// a durable consumer named durable (explicit ack, bounded redelivery, dead
// letter after that), while the server serves.
func (s *RPCServer) OnUserDeactivated(ctx context.Context, js jetstream.JetStream, durable string, forget ForgetUser) error {
	if err := events.EnsureStream(ctx, js, events.StreamAuth, []string{"auth.v1.>"}); err != nil {
		return err
	}
	s.Background(func(ctx context.Context) {
		events.ConsumeUntilDone(ctx, js, events.StreamAuth, durable, []string{SubjectUserDeactivated}, DeactivatedHandler(forget), s.log)
	})
	return nil
}

// DeactivatedHandler decodes auth.v1.UserDeactivated for forget; a payload
// that does not decode is permanent (dead-lettered, never retried).
func DeactivatedHandler(forget ForgetUser) events.Handler {
	return func(ctx context.Context, _, _ string, data []byte) error {
		var ev authv1.UserDeactivated
		if err := proto.Unmarshal(data, &ev); err != nil || ev.GetUserId() == "" {
			return fmt.Errorf("user.deactivated: %w: %v", events.ErrPermanent, err)
		}
		return forget(ctx, ev.GetUserId())
	}
}
