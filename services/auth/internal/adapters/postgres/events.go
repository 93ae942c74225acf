package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

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
	// SubjectSessionEnded: every verifier refuses the families' access tokens.
	SubjectSessionEnded = "auth.v1.session.ended"
)

// endSessions marks the user's families revoked for reason (those the WHERE
// clause selects, still active) and publishes auth.v1.session.ended for
// them in the same transaction.
func endSessions(ctx context.Context, tx pgx.Tx, reason, where string, now time.Time, args ...any) error {
	rows, err := tx.Query(ctx, `UPDATE token_families SET revoked_at = $1, revoked_reason = $2
		WHERE revoked_at IS NULL AND `+where+` RETURNING id::text, user_id::text`, append([]any{now, reason}, args...)...)
	if err != nil {
		return err
	}
	byUser := map[string][]string{}
	for rows.Next() {
		var fam, user string
		if err := rows.Scan(&fam, &user); err != nil {
			rows.Close()
			return err
		}
		byUser[user] = append(byUser[user], fam)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for user, fams := range byUser {
		id := uuid.NewString()
		if err := enqueue(ctx, tx, SubjectSessionEnded, id, &authv1.SessionEnded{
			EventId: id, OccurredAt: timestamppb.New(now), UserId: user, FamilyIds: fams, Reason: reason,
		}); err != nil {
			return err
		}
	}
	return nil
}

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
