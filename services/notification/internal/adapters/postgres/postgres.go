// Package postgres stores the notification schema, and in the same
// transactions the events the realtime service pushes to open sockets.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	notificationv1 "bidradar/gen/notification/v1"
	"bidradar/pkg/events"
	"bidradar/pkg/outbox"
	"bidradar/pkg/pgdb"
	"bidradar/services/notification/internal/domain"
	"bidradar/services/notification/internal/wire"
)

// Store implements domain.Store.
type Store struct{ pool *pgxpool.Pool }

// New returns the store on pool (its search_path is the notification schema).
func New(pool *pgxpool.Pool) *Store { return &Store{pool: pool} }

const columns = `id::text, user_id::text, category, priority, type, title, message, project_id, link, is_read, read_at, created_at, project_ids`

func scan(row pgx.Row) (domain.Notification, error) {
	var n domain.Notification
	err := row.Scan(&n.ID, &n.UserID, &n.Category, &n.Priority, &n.Type, &n.Title, &n.Message,
		&n.ProjectID, &n.Link, &n.IsRead, &n.ReadAt, &n.Created, &n.ProjectIDs)
	return n, err
}

func collect(rows pgx.Rows) ([]domain.Notification, error) {
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (domain.Notification, error) { return scan(r) })
}

// listed is the condition of the rows in the lists and counts (archived
// rows are kept but shown nowhere); visible is a user's.
const (
	listed  = `archived_at IS NULL`
	visible = `user_id = $1 AND ` + listed
)

func unread(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, userID string) (int64, error) {
	var n int64
	err := q.QueryRow(ctx, `SELECT count(*) FROM notifications WHERE `+visible+` AND NOT is_read`, userID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count unread: %w", err)
	}
	return n, nil
}

// List implements domain.Store.
func (s *Store) List(ctx context.Context, userID string, f domain.ListFilter, p domain.Page) ([]domain.Notification, int64, int64, error) {
	where, args := visible, []any{userID}
	if f.IsRead != nil {
		args = append(args, *f.IsRead)
		where += fmt.Sprintf(" AND is_read = $%d", len(args))
	}
	if f.Category != "" {
		args = append(args, f.Category)
		where += fmt.Sprintf(" AND category = $%d", len(args))
	}
	var ns []domain.Notification
	var total, unreadN int64
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{AccessMode: pgx.ReadOnly, IsoLevel: pgx.RepeatableRead}, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM notifications WHERE `+where, args...).Scan(&total); err != nil {
			return err
		}
		var err error
		if unreadN, err = unread(ctx, tx, userID); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT `+columns+` FROM notifications WHERE `+where+
			fmt.Sprintf(` ORDER BY created_at DESC, seq DESC LIMIT %d OFFSET %d`, p.Size, (p.Number-1)*p.Size), args...)
		if err != nil {
			return err
		}
		ns, err = collect(rows)
		return err
	})
	if err != nil {
		return nil, 0, 0, fmt.Errorf("list notifications: %w", err)
	}
	return ns, total, unreadN, nil
}

// UnreadCount implements domain.Store.
func (s *Store) UnreadCount(ctx context.Context, userID string) (int64, error) {
	return unread(ctx, s.pool, userID)
}

// changeUnread runs fn in a transaction that locks the user's notifications
// for the count, then publishes the new count when fn changed rows.
func (s *Store) changeUnread(ctx context.Context, userID string, now time.Time, fn func(tx pgx.Tx) (int64, error)) (changed, count int64, err error) {
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// One writer per user at a time: the count in each event is the
		// count after that event's commit, in commit order.
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('notification:' || $1, 0))`, userID); err != nil {
			return err
		}
		if changed, err = fn(tx); err != nil || changed == 0 {
			return err
		}
		if count, err = unread(ctx, tx, userID); err != nil {
			return err
		}
		return outbox.EnqueueEvent(ctx, tx, &notificationv1.UnreadCountChanged{
			EventId: uuid.NewString(), UserId: userID, UnreadCount: count})
	})
	return changed, count, err
}

// MarkRead implements domain.Store.
func (s *Store) MarkRead(ctx context.Context, userID, id string, now time.Time) (domain.Notification, int64, error) {
	var n domain.Notification
	_, count, err := s.changeUnread(ctx, userID, now, func(tx pgx.Tx) (int64, error) {
		var err error
		n, err = scan(tx.QueryRow(ctx, `SELECT `+columns+` FROM notifications WHERE `+visible+` AND id = $2 FOR UPDATE`, userID, id))
		if errors.Is(err, pgx.ErrNoRows) {
			return 0, domain.ErrNotFound
		}
		if err != nil || n.IsRead {
			return 0, err
		}
		n.IsRead, n.ReadAt = true, &now
		_, err = tx.Exec(ctx, `UPDATE notifications SET is_read = true, read_at = $3 WHERE user_id = $1 AND id = $2`, userID, id, now)
		return 1, err
	})
	if err != nil {
		return domain.Notification{}, 0, err
	}
	if n.IsRead && count == 0 { // was read already: nothing published, count it
		count, err = s.UnreadCount(ctx, userID)
	}
	return n, count, err
}

// MarkAllRead implements domain.Store.
func (s *Store) MarkAllRead(ctx context.Context, userID string, now time.Time) (int64, error) {
	n, _, err := s.changeUnread(ctx, userID, now, func(tx pgx.Tx) (int64, error) {
		tag, err := tx.Exec(ctx, `UPDATE notifications SET is_read = true, read_at = $2 WHERE `+visible+` AND NOT is_read`, userID, now)
		return tag.RowsAffected(), err
	})
	return n, err
}

// Delete implements domain.Store.
func (s *Store) Delete(ctx context.Context, userID, id string, now time.Time) error {
	_, _, err := s.changeUnread(ctx, userID, now, func(tx pgx.Tx) (int64, error) {
		tag, err := tx.Exec(ctx, `DELETE FROM notifications WHERE `+visible+` AND id = $2`, userID, id)
		if err == nil && tag.RowsAffected() == 0 {
			return 0, domain.ErrNotFound
		}
		return tag.RowsAffected(), err
	})
	return err
}

// Clear implements domain.Store.
func (s *Store) Clear(ctx context.Context, userID string, f domain.ClearFilter, now time.Time) (int64, error) {
	where, args := visible, []any{userID}
	if len(f.IDs) > 0 {
		ids, err := pgdb.UUIDs(f.IDs)
		if err != nil {
			return 0, fmt.Errorf("clear: %w", err)
		}
		args = append(args, ids)
		where += fmt.Sprintf(" AND id = ANY($%d::uuid[])", len(args))
	}
	if f.Category != "" {
		args = append(args, f.Category)
		where += fmt.Sprintf(" AND category = $%d", len(args))
	}
	if f.IsRead != nil {
		args = append(args, *f.IsRead)
		where += fmt.Sprintf(" AND is_read = $%d", len(args))
	}
	if f.OlderThanDays != nil {
		args = append(args, now.Add(-time.Duration(*f.OlderThanDays)*24*time.Hour))
		where += fmt.Sprintf(" AND created_at < $%d", len(args))
	}
	n, _, err := s.changeUnread(ctx, userID, now, func(tx pgx.Tx) (int64, error) {
		q := `DELETE FROM notifications WHERE ` + where
		if f.Archive {
			args = append(args, now)
			q = fmt.Sprintf(`UPDATE notifications SET archived_at = $%d WHERE `, len(args)) + where
		}
		tag, err := tx.Exec(ctx, q, args...)
		return tag.RowsAffected(), err
	})
	return n, err
}

// lockUsers takes the advisory lock of each user (changeUnread's), in the
// order of the lock keys: writers of overlapping users wait for one
// another instead of deadlocking (the keys, not the ids, are sorted: two
// ids may share a key). A volatile function of the select list is
// evaluated after the ORDER BY sort (PostgreSQL ≥ 9.6).
func lockUsers(ctx context.Context, tx pgx.Tx, users []string) error {
	_, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(k) FROM
		(SELECT DISTINCT hashtextextended('notification:' || u, 0) AS k FROM unnest($1::text[]) u) keys ORDER BY k`, users)
	if err != nil {
		return fmt.Errorf("lock users: %w", err)
	}
	return nil
}

// Create implements domain.Store, with a few statements whatever the
// number of drafts (an alert fans out to hundreds of users): the users'
// locks, the rows (those whose user and dedup key are new), their
// deliveries, the unread counts of their users, and one outbox row
// carrying a NotificationCreated event a new notification (with its
// user's unread count after this commit, counted from the rows).
func (s *Store) Create(ctx context.Context, consumer, eventID string, drafts []domain.Draft, now time.Time) ([]domain.Notification, error) {
	b := newDraftBatch(drafts)
	var created []domain.Notification
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		created = nil // a retried transaction starts over
		if eventID != "" {
			first, err := events.MarkProcessed(ctx, tx, consumer, eventID)
			if err != nil || !first {
				return err
			}
		}
		if len(b.drafts) == 0 {
			return nil
		}
		if err := lockUsers(ctx, tx, b.users); err != nil {
			return err
		}
		rows, err := b.insert(ctx, tx, now)
		if err != nil || len(rows) == 0 {
			return err // none new: every user has them already
		}
		for _, r := range rows {
			created = append(created, r.n)
		}
		return b.announce(ctx, tx, rows, now)
	})
	if err != nil {
		return nil, err
	}
	return created, nil
}

// draftKey names a notification of a user: a draft whose key exists is
// not created again.
type draftKey struct{ user, dedup string }

// draftBatch are the drafts of one Create, each (user, key) once.
type draftBatch struct {
	drafts []domain.Draft
	index  map[draftKey]int // a (user, key) named twice: the first draft
	users  []string         // their users, each once
}

func newDraftBatch(drafts []domain.Draft) draftBatch {
	b := draftBatch{drafts: make([]domain.Draft, 0, len(drafts)), index: make(map[draftKey]int, len(drafts))}
	known := map[string]bool{}
	for _, d := range drafts {
		if id, err := uuid.Parse(d.UserID); err == nil {
			d.UserID = id.String() // as the rows return it
		}
		k := draftKey{d.UserID, d.DedupKey}
		if _, dup := b.index[k]; dup {
			continue
		}
		b.index[k] = len(b.drafts)
		b.drafts = append(b.drafts, d)
		if !known[d.UserID] {
			known[d.UserID] = true
			b.users = append(b.users, d.UserID)
		}
	}
	return b
}

// createdRow is a new notification and the draft it came from.
type createdRow struct {
	draft int
	n     domain.Notification
}

// insert writes the drafts whose (user, key) is new and returns them in the
// drafts' order.
func (b draftBatch) insert(ctx context.Context, tx pgx.Tx, now time.Time) ([]createdRow, error) {
	cols := make([][]string, 9)
	for i := range cols {
		cols[i] = make([]string, len(b.drafts))
	}
	for i, d := range b.drafts {
		cols[0][i], cols[1][i], cols[2][i], cols[3][i] = d.UserID, d.DedupKey, d.Category, d.Priority
		cols[4][i], cols[5][i], cols[6][i], cols[7][i] = d.Title, d.Message, d.ProjectID, d.Link
		// Project ids are digits: one text a draft, split again in SQL
		// (unnest cannot take a list of lists of different lengths).
		cols[8][i] = strings.Join(d.ProjectIDs, ",")
	}
	// In the drafts' order: seq orders a user's notifications of one instant.
	rows, err := tx.Query(ctx, `INSERT INTO notifications
		(id, user_id, dedup_key, category, priority, type, title, message, project_id, link, created_at, project_ids)
		SELECT gen_random_uuid(), d.user_id::uuid, d.dedup_key, d.category, d.priority, $9, d.title, d.message, d.project_id, d.link, $10,
			string_to_array(d.project_ids, ',')
		FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $11::text[]) WITH ORDINALITY
			AS d (user_id, dedup_key, category, priority, title, message, project_id, link, project_ids, i)
		ORDER BY d.i
		ON CONFLICT (user_id, dedup_key) DO NOTHING RETURNING dedup_key, `+columns,
		cols[0], cols[1], cols[2], cols[3], cols[4], cols[5], cols[6], cols[7], domain.TypeBell, now, cols[8])
	if err != nil {
		return nil, fmt.Errorf("insert notifications: %w", err)
	}
	defer rows.Close()
	var out []createdRow
	for rows.Next() {
		var dedup string
		var n domain.Notification
		if err := rows.Scan(&dedup, &n.ID, &n.UserID, &n.Category, &n.Priority, &n.Type, &n.Title, &n.Message,
			&n.ProjectID, &n.Link, &n.IsRead, &n.ReadAt, &n.Created, &n.ProjectIDs); err != nil {
			return nil, fmt.Errorf("insert notifications: %w", err)
		}
		i, ok := b.index[draftKey{n.UserID, dedup}]
		if !ok {
			return nil, fmt.Errorf("insert notifications: row %s of no draft", n.ID)
		}
		out = append(out, createdRow{draft: i, n: n})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("insert notifications: %w", err)
	}
	slices.SortFunc(out, func(a, b createdRow) int { return a.draft - b.draft })
	return out, nil
}

// announce queues the new notifications' deliveries on their drafts'
// channels and their NotificationCreated events, each with its user's
// unread count after this transaction.
func (b draftBatch) announce(ctx context.Context, tx pgx.Tx, rows []createdRow, now time.Time) error {
	var dn, du, dc []string
	touched := make([]string, 0, len(b.users))
	seen := map[string]bool{}
	for _, r := range rows {
		for _, ch := range b.drafts[r.draft].Channels {
			dn, du, dc = append(dn, r.n.ID), append(du, r.n.UserID), append(dc, ch)
		}
		if !seen[r.n.UserID] {
			seen[r.n.UserID] = true
			touched = append(touched, r.n.UserID)
		}
	}
	if err := queueDeliveries(ctx, tx, dn, du, dc, now); err != nil {
		return err
	}
	counts, err := unreadOf(ctx, tx, touched)
	if err != nil {
		return err
	}
	evs := make([]outbox.ProtoEvent, 0, len(rows))
	for _, r := range rows {
		evs = append(evs, &notificationv1.NotificationCreated{EventId: uuid.NewString(), UserId: r.n.UserID,
			Notification: wire.Notification(r.n), UnreadCount: counts[r.n.UserID]})
	}
	return outbox.EnqueueBatch(ctx, tx, evs)
}

// unreadOf counts the unread notifications of each of users, with one query
// (the partial index of unread rows).
func unreadOf(ctx context.Context, tx pgx.Tx, users []string) (map[string]int64, error) {
	keys, err := pgdb.UUIDs(users)
	if err != nil {
		return nil, fmt.Errorf("count unread: %w", err)
	}
	rows, err := tx.Query(ctx, `SELECT user_id::text, count(*) FROM notifications
		WHERE user_id = ANY($1::uuid[]) AND `+listed+` AND NOT is_read GROUP BY user_id`, keys)
	if err != nil {
		return nil, fmt.Errorf("count unread: %w", err)
	}
	defer rows.Close()
	out := make(map[string]int64, len(users))
	for rows.Next() {
		var u string
		var n int64
		if err := rows.Scan(&u, &n); err != nil {
			return nil, fmt.Errorf("count unread: %w", err)
		}
		out[u] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("count unread: %w", err)
	}
	return out, nil
}

// SetFollow implements domain.Store.
func (s *Store) SetFollow(ctx context.Context, userID, projectID string, following, fill20 bool, at time.Time) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO follows (user_id, project_id, following, fill20, changed_at) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (project_id, user_id) DO UPDATE SET following = EXCLUDED.following, fill20 = EXCLUDED.fill20, changed_at = EXCLUDED.changed_at
		WHERE follows.changed_at <= EXCLUDED.changed_at`, userID, projectID, following, fill20, at)
	if err != nil {
		return fmt.Errorf("set follow: %w", err)
	}
	return nil
}

// Followers implements domain.Store.
func (s *Store) Followers(ctx context.Context, projectID string) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT user_id::text FROM follows WHERE project_id = $1 AND following ORDER BY user_id`, projectID)
	if err != nil {
		return nil, fmt.Errorf("followers: %w", err)
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// SettingsOf implements domain.Store.
func (s *Store) SettingsOf(ctx context.Context, userIDs []string) (map[string]domain.Settings, error) {
	out := make(map[string]domain.Settings, len(userIDs))
	for _, u := range userIDs {
		out[u] = domain.DefaultSettings
	}
	keys, err := pgdb.UUIDs(userIDs)
	if err != nil {
		return nil, fmt.Errorf("settings: %w", err)
	}
	rows, err := s.pool.Query(ctx, `SELECT user_id::text, bell_enabled, email_enabled, email_digest, line_enabled, line_user_id,
		notify_announcements, notify_search_matches, notify_payments, notify_deadlines FROM settings WHERE user_id = ANY($1::uuid[])`, keys)
	if err != nil {
		return nil, fmt.Errorf("settings: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var u string
		var st domain.Settings
		if err := rows.Scan(&u, &st.BellEnabled, &st.EmailEnabled, &st.EmailDigest, &st.LineEnabled, &st.LineUserID,
			&st.NotifyAnnouncements, &st.NotifySearchMatches, &st.NotifyPayments, &st.NotifyDeadlines); err != nil {
			return nil, err
		}
		out[u] = st
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	hooks, err := s.pool.Query(ctx, `SELECT user_id::text FROM webhooks WHERE user_id = ANY($1::uuid[])`, keys)
	if err != nil {
		return nil, fmt.Errorf("settings: webhooks: %w", err)
	}
	with, err := pgx.CollectRows(hooks, pgx.RowTo[string])
	if err != nil {
		return nil, err
	}
	for _, u := range with {
		st := out[u]
		st.Webhook = true
		out[u] = st
	}
	return out, nil
}

// PutSettings implements domain.Store.
func (s *Store) PutSettings(ctx context.Context, userID string, st domain.Settings, now time.Time) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO settings (user_id, bell_enabled, email_enabled, email_digest, line_enabled, line_user_id,
		notify_announcements, notify_search_matches, notify_payments, updated_at, notify_deadlines) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
		ON CONFLICT (user_id) DO UPDATE SET bell_enabled = $2, email_enabled = $3, email_digest = $4, line_enabled = $5,
		line_user_id = $6, notify_announcements = $7, notify_search_matches = $8, notify_payments = $9, updated_at = $10,
		notify_deadlines = $11`,
		userID, st.BellEnabled, st.EmailEnabled, st.EmailDigest, st.LineEnabled, st.LineUserID,
		st.NotifyAnnouncements, st.NotifySearchMatches, st.NotifyPayments, now, st.NotifyDeadlines)
	if err != nil {
		return fmt.Errorf("put settings: %w", err)
	}
	return nil
}

// DeleteUser implements domain.Store, in one transaction.
func (s *Store) DeleteUser(ctx context.Context, userID string) error {
	if !domain.ValidID(userID) {
		return nil
	}
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := deleteDeliveryJobs(ctx, tx, userID); err != nil {
			return err
		}
		for _, table := range []string{"deliveries", "digests", "notifications", "follows", "settings", "webhooks", "rate_events"} {
			if _, err := tx.Exec(ctx, `DELETE FROM `+table+` WHERE user_id = $1`, userID); err != nil {
				return fmt.Errorf("delete user's %s: %w", table, err)
			}
		}
		return nil
	})
}
