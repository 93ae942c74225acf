package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"bidradar/pkg/pgdb"
	"bidradar/services/notification/internal/domain"
)

// ClaimDeliveries implements domain.Store: the due rows are leased with
// SKIP LOCKED, so replicas share the work and none sends a row twice while
// its lease runs.
func (s *Store) ClaimDeliveries(ctx context.Context, now time.Time, limit int, lease time.Duration) ([]domain.Delivery, error) {
	rows, err := s.pool.Query(ctx, `UPDATE deliveries d SET attempts = d.attempts + 1, next_attempt_at = $2
		FROM (SELECT id FROM deliveries WHERE sent_at IS NULL AND failed_at IS NULL AND next_attempt_at <= $1
		      ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED) due, notifications n
		WHERE d.id = due.id AND n.id = d.notification_id
		RETURNING d.id, d.user_id::text, d.channel, d.retry_key::text, d.attempts,
			n.id::text, n.user_id::text, n.category, n.priority, n.type, n.title, n.message, n.project_id, n.link, n.is_read, n.read_at, n.created_at`,
		now, now.Add(lease), limit)
	if err != nil {
		return nil, fmt.Errorf("claim deliveries: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (domain.Delivery, error) {
		var d domain.Delivery
		n := &d.Notification
		err := row.Scan(&d.ID, &d.UserID, &d.Channel, &d.RetryKey, &d.Attempts,
			&n.ID, &n.UserID, &n.Category, &n.Priority, &n.Type, &n.Title, &n.Message, &n.ProjectID, &n.Link, &n.IsRead, &n.ReadAt, &n.Created)
		return d, err
	})
}

// DeliveryDone implements domain.Store.
func (s *Store) DeliveryDone(ctx context.Context, id int64, now time.Time) error {
	_, err := s.pool.Exec(ctx, `UPDATE deliveries SET sent_at = $2, last_error = NULL WHERE id = $1`, id, now)
	return err
}

// DeliveryFailed implements domain.Store.
func (s *Store) DeliveryFailed(ctx context.Context, id int64, cause string, next *time.Time, now time.Time) error {
	if len(cause) > 500 {
		cause = cause[:500]
	}
	var err error
	if next == nil {
		_, err = s.pool.Exec(ctx, `UPDATE deliveries SET failed_at = $2, last_error = $3 WHERE id = $1`, id, now, cause)
	} else {
		_, err = s.pool.Exec(ctx, `UPDATE deliveries SET next_attempt_at = $2, last_error = $3 WHERE id = $1`, id, *next, cause)
	}
	return err
}

// DigestDue implements domain.Store.
func (s *Store) DigestDue(ctx context.Context, day, from, to time.Time) (map[string][]domain.Notification, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+columns+` FROM notifications n
		WHERE n.created_at >= $2 AND n.created_at < $3 AND n.archived_at IS NULL AND n.category <> 'system_alert'
		AND EXISTS (SELECT 1 FROM settings st WHERE st.user_id = n.user_id AND st.email_enabled AND st.email_digest = 'daily')
		AND NOT EXISTS (SELECT 1 FROM digests g WHERE g.user_id = n.user_id AND g.day = $1)
		ORDER BY n.user_id, n.created_at, n.seq`, day, from, to)
	if err != nil {
		return nil, fmt.Errorf("digest due: %w", err)
	}
	ns, err := collect(rows)
	if err != nil {
		return nil, err
	}
	out := map[string][]domain.Notification{}
	for _, n := range ns {
		out[n.UserID] = append(out[n.UserID], n)
	}
	return out, nil
}

// ClaimDigest implements domain.Store.
func (s *Store) ClaimDigest(ctx context.Context, userID string, day time.Time, count int, now time.Time) (bool, error) {
	tag, err := s.pool.Exec(ctx, `INSERT INTO digests (user_id, day, count, sent_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
		userID, day, count, now)
	if err != nil {
		return false, fmt.Errorf("claim digest: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}

// RecordStep implements domain.Store.
func (s *Store) RecordStep(ctx context.Context, st domain.Step) error {
	var day *time.Time
	if d, err := time.Parse(time.DateOnly, st.Day); err == nil {
		day = &d
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO project_steps (event_id, project_id, project_name, type_name, day, seen_at)
		VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`, st.EventID, st.ProjectID, st.ProjectName, st.TypeName, day, st.SeenAt)
	if err != nil {
		return fmt.Errorf("record step: %w", err)
	}
	return nil
}

// Fill20Steps implements domain.Store: a step counts from its announcement
// date (an old step ingested late is not a change), else from when it was seen.
func (s *Store) Fill20Steps(ctx context.Context, userIDs []string, since time.Time) (map[string][]domain.Step, error) {
	out := map[string][]domain.Step{}
	if len(userIDs) == 0 {
		return out, nil
	}
	keys, err := pgdb.UUIDs(userIDs)
	if err != nil {
		return nil, fmt.Errorf("fill20 steps: %w", err)
	}
	rows, err := s.pool.Query(ctx, `SELECT f.user_id::text, p.event_id, p.project_id, p.project_name, p.type_name, p.day, p.seen_at
		FROM follows f JOIN project_steps p ON p.project_id = f.project_id
		WHERE f.user_id = ANY($1::uuid[]) AND f.following AND f.fill20
		AND coalesce(p.day, (p.seen_at AT TIME ZONE 'Asia/Bangkok')::date) >= $2::date
		ORDER BY f.user_id, p.project_id, coalesce(p.day, (p.seen_at AT TIME ZONE 'Asia/Bangkok')::date), p.seen_at`, keys, since)
	if err != nil {
		return nil, fmt.Errorf("fill20 steps: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var u string
		var st domain.Step
		var day *time.Time
		if err := rows.Scan(&u, &st.EventID, &st.ProjectID, &st.ProjectName, &st.TypeName, &day, &st.SeenAt); err != nil {
			return nil, err
		}
		if day != nil {
			st.Day = day.Format(time.DateOnly)
		}
		out[u] = append(out[u], st)
	}
	return out, rows.Err()
}

// PruneSteps implements domain.Store.
func (s *Store) PruneSteps(ctx context.Context, before time.Time) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM project_steps WHERE seen_at < $1 AND (day IS NULL OR day < $1::date)`, before)
	return err
}
