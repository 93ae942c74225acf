package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"bidradar/pkg/pgdb"
	"bidradar/pkg/queue"
	"bidradar/services/notification/internal/domain"
)

// Delivery implements domain.Store.
func (s *Store) Delivery(ctx context.Context, id int64) (domain.Delivery, bool, error) {
	var d domain.Delivery
	n := &d.Notification
	err := s.pool.QueryRow(ctx, `SELECT d.id, d.user_id::text, d.channel, d.retry_key::text,
			n.id::text, n.user_id::text, n.category, n.priority, n.type, n.title, n.message, n.project_id, n.link, n.is_read, n.read_at, n.created_at
		FROM deliveries d JOIN notifications n ON n.id = d.notification_id WHERE d.id = $1`, id).
		Scan(&d.ID, &d.UserID, &d.Channel, &d.RetryKey,
			&n.ID, &n.UserID, &n.Category, &n.Priority, &n.Type, &n.Title, &n.Message, &n.ProjectID, &n.Link, &n.IsRead, &n.ReadAt, &n.Created)
	if errors.Is(err, pgx.ErrNoRows) {
		return d, false, nil
	}
	if err != nil {
		return d, false, fmt.Errorf("delivery %d: %w", id, err)
	}
	return d, true, nil
}

// queueDeliveries writes the deliveries of new notifications (indexed
// alike: notification, user, channel) and queues each as a job due at now,
// to its destination: a webhook's is the host of the user's webhook as it
// stands.
func queueDeliveries(ctx context.Context, tx pgx.Tx, notifications, users, channels []string, now time.Time) error {
	if len(notifications) == 0 {
		return nil
	}
	rows, err := tx.Query(ctx, `INSERT INTO deliveries (notification_id, user_id, channel, retry_key)
		SELECT d.n::uuid, d.u::uuid, d.c, gen_random_uuid()
		FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS d (n, u, c, i)
		ORDER BY d.i ON CONFLICT DO NOTHING RETURNING id, channel, (SELECT url FROM webhooks w WHERE w.user_id = deliveries.user_id)`,
		notifications, users, channels)
	if err != nil {
		return fmt.Errorf("queue deliveries: %w", err)
	}
	var jobs []queue.Job
	var id int64
	var channel string
	var hook *string
	if _, err := pgx.ForEachRow(rows, []any{&id, &channel, &hook}, func() error {
		url := ""
		if hook != nil {
			url = *hook
		}
		jobs = append(jobs, queue.Job{Kind: domain.JobDelivery, Key: strconv.FormatInt(id, 10),
			Destination: domain.DeliveryDestination(channel, url), Due: now})
		return nil
	}); err != nil {
		return fmt.Errorf("queue deliveries: %w", err)
	}
	return queue.Enqueue(ctx, tx, jobs...)
}

// deleteDeliveryJobs deletes the jobs of the user's deliveries (an account
// deleted), before the deliveries themselves.
func deleteDeliveryJobs(ctx context.Context, tx pgx.Tx, userID string) error {
	keys, err := deliveryKeys(ctx, tx, userID, "")
	if err != nil {
		return fmt.Errorf("delete user's delivery jobs: %w", err)
	}
	return queue.Delete(ctx, tx, domain.JobDelivery, keys)
}

// deliveryKeys are the job keys of the user's deliveries (of channel, when
// set).
func deliveryKeys(ctx context.Context, tx pgx.Tx, userID, channel string) ([]string, error) {
	rows, err := tx.Query(ctx, `SELECT id::text FROM deliveries WHERE user_id = $1 AND ($2 = '' OR channel = $2)`, userID, channel)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
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
func (s *Store) ClaimDigest(ctx context.Context, userID string, day time.Time, count int, now time.Time, m domain.DigestMail) (bool, error) {
	claimed := false
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO digests (user_id, day, count, sent_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
			userID, day, count, now)
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		claimed = true
		return queue.Enqueue(ctx, tx, queue.Job{Kind: domain.JobDigest, Key: userID + "/" + day.Format(time.DateOnly),
			Destination: domain.ChannelEmail, Payload: m, Due: now})
	})
	if err != nil {
		return false, fmt.Errorf("claim digest: %w", err)
	}
	return claimed, nil
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
