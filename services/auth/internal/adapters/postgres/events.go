package postgres

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/jackc/pgx/v5"
	"google.golang.org/protobuf/types/known/timestamppb"

	authv1 "bidradar/gen/auth/v1"
	"bidradar/pkg/outbox"
	"bidradar/services/auth/internal/domain"
)

// endSessions marks the user's families revoked for reason (those the WHERE
// clause selects, still active) and publishes auth.v1.SessionEnded for them
// in the same transaction: every verifier refuses their access tokens.
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
		if err := outbox.EnqueueEvent(ctx, tx, &authv1.SessionEnded{
			EventId: id, OccurredAt: timestamppb.New(now), UserId: user, FamilyIds: fams, Reason: reason,
		}); err != nil {
			return err
		}
	}
	return nil
}

func enqueueRegistered(ctx context.Context, tx pgx.Tx, ev domain.UserRegistered) error {
	return outbox.EnqueueEvent(ctx, tx, &authv1.UserRegistered{
		EventId: ev.EventID, OccurredAt: timestamppb.New(ev.OccurredAt), UserId: ev.UserID,
		Email: ev.Email, Username: ev.Username, Name: ev.Name,
	})
}

func enqueueVerified(ctx context.Context, tx pgx.Tx, ev domain.UserVerified) error {
	return outbox.EnqueueEvent(ctx, tx, &authv1.UserVerified{
		EventId: ev.EventID, OccurredAt: timestamppb.New(ev.OccurredAt), UserId: ev.UserID, Email: ev.Email,
	})
}
