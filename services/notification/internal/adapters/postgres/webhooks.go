package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"bidradar/pkg/queue"
	"bidradar/services/notification/internal/domain"
)

// PutWebhook implements domain.Store.
func (s *Store) PutWebhook(ctx context.Context, w domain.Webhook, now time.Time) error {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO webhooks (user_id, url, secret, created_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (user_id) DO UPDATE SET url = $2, secret = $3, created_at = $4`, w.UserID, w.URL, w.Secret, now); err != nil {
			return err
		}
		keys, err := deliveryKeys(ctx, tx, w.UserID, domain.ChannelWebhook)
		if err != nil {
			return err
		}
		return queue.Redirect(ctx, tx, domain.JobDelivery, keys, domain.DeliveryDestination(domain.ChannelWebhook, w.URL))
	})
	if err != nil {
		return fmt.Errorf("put webhook: %w", err)
	}
	return nil
}

// DeleteWebhook implements domain.Store.
func (s *Store) DeleteWebhook(ctx context.Context, userID string, now time.Time) (bool, error) {
	found := false
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM webhooks WHERE user_id = $1`, userID)
		if err != nil {
			return err
		}
		found = tag.RowsAffected() == 1
		keys, err := deliveryKeys(ctx, tx, userID, domain.ChannelWebhook)
		if err != nil {
			return err
		}
		return queue.Cancel(ctx, tx, domain.JobDelivery, keys, "webhook removed")
	})
	if err != nil {
		return false, fmt.Errorf("delete webhook: %w", err)
	}
	return found, nil
}

// GetWebhook implements domain.Store.
func (s *Store) GetWebhook(ctx context.Context, userID string) (domain.Webhook, bool, error) {
	w := domain.Webhook{UserID: userID}
	err := s.pool.QueryRow(ctx, `SELECT url, secret, created_at FROM webhooks WHERE user_id = $1`, userID).Scan(&w.URL, &w.Secret, &w.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return w, false, nil
	}
	if err != nil {
		return w, false, fmt.Errorf("get webhook: %w", err)
	}
	return w, true, nil
}

// WebhookDeliveries implements domain.Store.
func (s *Store) WebhookDeliveries(ctx context.Context, userID string, limit int) ([]domain.WebhookDelivery, error) {
	rows, err := s.pool.Query(ctx, `SELECT d.id, n.id::text, n.title, q.attempts, d.last_status, coalesce(q.last_error, ''),
			n.created_at, q.next_attempt_at, q.done_at, q.failed_at IS NOT NULL
		FROM deliveries d JOIN notifications n ON n.id = d.notification_id
		JOIN queue_jobs q ON q.kind = $3 AND q.key = d.id::text
		WHERE d.user_id = $1 AND d.channel = 'webhook' ORDER BY d.id DESC LIMIT $2`, userID, limit, domain.JobDelivery)
	if err != nil {
		return nil, fmt.Errorf("webhook deliveries: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (domain.WebhookDelivery, error) {
		var d domain.WebhookDelivery
		var failed bool
		err := row.Scan(&d.ID, &d.NotificationID, &d.Title, &d.Attempts, &d.LastStatusCode, &d.LastError,
			&d.CreatedAt, &d.NextAttemptAt, &d.SentAt, &failed)
		switch {
		case d.SentAt != nil:
			d.Status = "sent"
		case failed:
			d.Status = "failed"
		default:
			d.Status = "pending"
		}
		return d, err
	})
}

// DeliveryStatus implements domain.Store.
func (s *Store) DeliveryStatus(ctx context.Context, id int64, status int) error {
	_, err := s.pool.Exec(ctx, `UPDATE deliveries SET last_status = $2 WHERE id = $1`, id, status)
	return err
}
