package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	authv1 "bidradar/gen/auth/v1"
	"bidradar/pkg/outbox"
	"bidradar/services/auth/internal/domain"
)

// Event subjects of the AUTH stream (auth.v1.>).
const (
	StreamName        = "AUTH"
	StreamSubjects    = "auth.v1.>"
	SubjectRegistered = "auth.v1.user.registered"
	SubjectVerified   = "auth.v1.user.verified"
)

func enqueueRegistered(ctx context.Context, tx pgx.Tx, ev domain.UserRegistered) error {
	return enqueue(ctx, tx, SubjectRegistered, ev.EventID, &authv1.UserRegistered{
		EventId: ev.EventID, OccurredAt: timestamppb.New(ev.OccurredAt), UserId: ev.UserID,
		Email: ev.Email, Username: ev.Username, Name: ev.Name,
	})
}

func enqueueVerified(ctx context.Context, tx pgx.Tx, ev domain.UserVerified) error {
	return enqueue(ctx, tx, SubjectVerified, ev.EventID, &authv1.UserVerified{
		EventId: ev.EventID, OccurredAt: timestamppb.New(ev.OccurredAt), UserId: ev.UserID, Email: ev.Email,
	})
}

func enqueue(ctx context.Context, tx pgx.Tx, subject, id string, m proto.Message) error {
	payload, err := proto.Marshal(m)
	if err != nil {
		return fmt.Errorf("marshal %s: %w", subject, err)
	}
	return outbox.Enqueue(ctx, tx, subject, id, payload)
}
