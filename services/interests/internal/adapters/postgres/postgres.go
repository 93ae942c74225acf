// Package postgres stores the interests schema: records, comments, and the
// events of their changes in the outbox of the same transaction.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"google.golang.org/protobuf/types/known/timestamppb"

	interestsv1 "bidradar/gen/interests/v1"
	"bidradar/pkg/outbox"
	"bidradar/services/interests/internal/domain"
)

// Repo implements domain.Records.
type Repo struct{ pool *pgxpool.Pool }

// New returns a repository on pool (its search_path is the interests schema).
func New(pool *pgxpool.Pool) *Repo { return &Repo{pool: pool} }

const columns = `user_id, project_id, is_like, is_follow, is_fill20, is_bid, archived,
	bid_satang, reduction_bp, bid_updated_at, comment_count, created_at, updated_at`

func scan(row pgx.Row) (domain.Record, error) {
	var r domain.Record
	var bp *int32
	err := row.Scan(&r.UserID, &r.ProjectID, &r.Like, &r.Follow, &r.Fill20, &r.Bid, &r.Archived,
		&r.BidSatang, &bp, &r.BidUpdated, &r.CommentCount, &r.Created, &r.Updated)
	if bp != nil {
		v := int64(*bp)
		r.ReductionBP = &v
	}
	return r, err
}

func collect(rows pgx.Rows) ([]domain.Record, error) {
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (domain.Record, error) { return scan(r) })
}

// Get implements domain.Records.
func (r *Repo) Get(ctx context.Context, userID, projectID string) (domain.Record, bool, error) {
	rec, err := scan(r.pool.QueryRow(ctx, `SELECT `+columns+` FROM interests WHERE user_id = $1 AND project_id = $2`, userID, projectID))
	if errors.Is(err, pgx.ErrNoRows) {
		return domain.Record{}, false, nil
	}
	if err != nil {
		return domain.Record{}, false, fmt.Errorf("get interest: %w", err)
	}
	return rec, true, nil
}

// lockOrCreate returns the record row-locked in tx, inserting it first when missing.
func lockOrCreate(ctx context.Context, tx pgx.Tx, userID, projectID string, now time.Time) (domain.Record, bool, error) {
	tag, err := tx.Exec(ctx, `INSERT INTO interests (user_id, project_id, created_at, updated_at) VALUES ($1, $2, $3, $3)
		ON CONFLICT DO NOTHING`, userID, projectID, now)
	if err != nil {
		return domain.Record{}, false, fmt.Errorf("create interest: %w", err)
	}
	rec, err := scan(tx.QueryRow(ctx, `SELECT `+columns+` FROM interests WHERE user_id = $1 AND project_id = $2 FOR UPDATE`, userID, projectID))
	if err != nil {
		return domain.Record{}, false, fmt.Errorf("lock interest: %w", err)
	}
	return rec, tag.RowsAffected() == 1, nil
}

func write(ctx context.Context, tx pgx.Tx, rec domain.Record) error {
	_, err := tx.Exec(ctx, `UPDATE interests SET is_like = $3, is_follow = $4, is_fill20 = $5, is_bid = $6, archived = $7,
		bid_satang = $8, reduction_bp = $9, bid_updated_at = $10, comment_count = $11, updated_at = $12
		WHERE user_id = $1 AND project_id = $2`,
		rec.UserID, rec.ProjectID, rec.Like, rec.Follow, rec.Fill20, rec.Bid, rec.Archived,
		rec.BidSatang, rec.ReductionBP, rec.BidUpdated, rec.CommentCount, rec.Updated)
	if err != nil {
		return fmt.Errorf("write interest: %w", err)
	}
	return nil
}

func changed(rec domain.Record, now time.Time) *interestsv1.InterestChanged {
	return &interestsv1.InterestChanged{
		EventId: uuid.NewString(), OccurredAt: timestamppb.New(now), UserId: rec.UserID, ProjectId: rec.ProjectID,
		IsUserLike: rec.Like, IsInterestToStepChk: rec.Follow, Is_InterestToBid: rec.Bid, Archived: rec.Archived,
		IsFill20: rec.Fill20,
	}
}

func (r *Repo) inTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, r.pool, fn)
}

// Update implements domain.Records; interest.changed goes to the outbox
// when a mark changed.
func (r *Repo) Update(ctx context.Context, userID, projectID string, now time.Time, change func(*domain.Record) error) (domain.Record, bool, error) {
	var rec domain.Record
	var created bool
	err := r.inTx(ctx, func(tx pgx.Tx) error {
		before, isNew, err := lockOrCreate(ctx, tx, userID, projectID, now)
		if err != nil {
			return err
		}
		rec, created = before, isNew
		if err := change(&rec); err != nil {
			return err
		}
		if err := write(ctx, tx, rec); err != nil {
			return err
		}
		if isNew || marksDiffer(before, rec) {
			return outbox.EnqueueEvent(ctx, tx, changed(rec, now))
		}
		return nil
	})
	return rec, created, err
}

func marksDiffer(a, b domain.Record) bool {
	return a.Like != b.Like || a.Follow != b.Follow || a.Fill20 != b.Fill20 || a.Bid != b.Bid || a.Archived != b.Archived
}

// List implements domain.Records: newest change first.
func (r *Repo) List(ctx context.Context, userID string, archived bool, p domain.Page) ([]domain.Record, int64, error) {
	var total int64
	if err := r.pool.QueryRow(ctx, `SELECT count(*) FROM interests WHERE user_id = $1 AND archived = $2`, userID, archived).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count interests: %w", err)
	}
	rows, err := r.pool.Query(ctx, `SELECT `+columns+` FROM interests WHERE user_id = $1 AND archived = $2
		ORDER BY updated_at DESC, project_id LIMIT $3 OFFSET $4`, userID, archived, p.Size, (p.Number-1)*p.Size)
	if err != nil {
		return nil, 0, fmt.Errorf("list interests: %w", err)
	}
	recs, err := collect(rows)
	return recs, total, err
}

// Counts implements domain.Records.
func (r *Repo) Counts(ctx context.Context, userID string) (domain.Counts, error) {
	var c domain.Counts
	err := r.pool.QueryRow(ctx, `SELECT
		count(*) FILTER (WHERE NOT archived), count(*) FILTER (WHERE archived),
		count(*) FILTER (WHERE NOT archived AND is_like), count(*) FILTER (WHERE NOT archived AND is_follow),
		count(*) FILTER (WHERE NOT archived AND is_bid), count(*) FILTER (WHERE NOT archived AND comment_count > 0)
		FROM interests WHERE user_id = $1`, userID).Scan(&c.Active, &c.Archived, &c.Liked, &c.Following, &c.Bidding, &c.Commented)
	if err != nil {
		return c, fmt.Errorf("count interests: %w", err)
	}
	return c, nil
}

// GetMany implements domain.Records.
func (r *Repo) GetMany(ctx context.Context, userID string, projectIDs []string) ([]domain.Record, error) {
	rows, err := r.pool.Query(ctx, `SELECT `+columns+` FROM interests WHERE user_id = $1 AND project_id = ANY($2)`, userID, projectIDs)
	if err != nil {
		return nil, fmt.Errorf("get interests: %w", err)
	}
	return collect(rows)
}

// flagWhere selects the records a listing flag names. Archived records
// appear only under the archive flag (an archived project left the lists).
var flagWhere = map[domain.Flag]string{
	domain.FlagBid:     "NOT archived AND is_bid",
	domain.FlagArchive: "archived",
	domain.FlagFollow:  "NOT archived AND is_follow",
	domain.FlagLike:    "NOT archived AND is_like",
	domain.FlagFill20:  "NOT archived AND is_fill20",
	domain.FlagComment: "comment_count > 0",
}

// ProjectIDs implements domain.Records: newest change first.
func (r *Repo) ProjectIDs(ctx context.Context, userID string, f domain.Flag, limit int) ([]string, bool, error) {
	where, ok := flagWhere[f]
	if !ok {
		return nil, false, domain.ErrBadFlag
	}
	rows, err := r.pool.Query(ctx, `SELECT project_id FROM interests WHERE user_id = $1 AND `+where+`
		ORDER BY updated_at DESC, project_id LIMIT $2`, userID, limit+1)
	if err != nil {
		return nil, false, fmt.Errorf("interest ids: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, false, err
	}
	if len(ids) > limit {
		return ids[:limit], true, nil
	}
	return ids, false, nil
}

const commentColumns = `id::text, user_id, project_id, body, created_at, updated_at`

func scanComment(row pgx.Row) (domain.Comment, error) {
	var c domain.Comment
	err := row.Scan(&c.ID, &c.UserID, &c.ProjectID, &c.Text, &c.Created, &c.Updated)
	return c, err
}

// Comments implements domain.Records: oldest first.
func (r *Repo) Comments(ctx context.Context, userID, projectID string) ([]domain.Comment, error) {
	rows, err := r.pool.Query(ctx, `SELECT `+commentColumns+` FROM comments WHERE user_id = $1 AND project_id = $2
		ORDER BY created_at, id`, userID, projectID)
	if err != nil {
		return nil, fmt.Errorf("list comments: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (domain.Comment, error) { return scanComment(row) })
}

// AddComment implements domain.Records; comment.added goes to the outbox.
func (r *Repo) AddComment(ctx context.Context, userID, projectID, text string, now time.Time) (domain.Comment, domain.Record, bool, error) {
	var c domain.Comment
	var rec domain.Record
	var created bool
	err := r.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		if rec, created, err = lockOrCreate(ctx, tx, userID, projectID, now); err != nil {
			return err
		}
		c, err = scanComment(tx.QueryRow(ctx, `INSERT INTO comments (user_id, project_id, body, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $4) RETURNING `+commentColumns, userID, projectID, text, now))
		if err != nil {
			return fmt.Errorf("add comment: %w", err)
		}
		rec.CommentCount++
		rec.Updated = now
		if err := write(ctx, tx, rec); err != nil {
			return err
		}
		if created {
			if err := outbox.EnqueueEvent(ctx, tx, changed(rec, now)); err != nil {
				return err
			}
		}
		return outbox.EnqueueEvent(ctx, tx, &interestsv1.CommentAdded{
			EventId: uuid.NewString(), OccurredAt: timestamppb.New(now), UserId: userID, ProjectId: projectID, CommentId: c.ID,
		})
	})
	return c, rec, created, err
}

// badUUID reports a comment id PostgreSQL cannot read as a uuid.
func badUUID(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "22P02"
}

// UpdateComment implements domain.Records.
func (r *Repo) UpdateComment(ctx context.Context, userID, projectID, commentID, text string, now time.Time) (domain.Comment, error) {
	c, err := scanComment(r.pool.QueryRow(ctx, `UPDATE comments SET body = $4, updated_at = $5
		WHERE id = $3 AND user_id = $1 AND project_id = $2 RETURNING `+commentColumns, userID, projectID, commentID, text, now))
	if errors.Is(err, pgx.ErrNoRows) || badUUID(err) {
		return c, domain.ErrCommentNotFound
	}
	if err != nil {
		return c, fmt.Errorf("update comment: %w", err)
	}
	return c, nil
}

// DeleteComment implements domain.Records.
func (r *Repo) DeleteComment(ctx context.Context, userID, projectID, commentID string, now time.Time) (domain.Record, error) {
	var rec domain.Record
	err := r.inTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM comments WHERE id = $3 AND user_id = $1 AND project_id = $2`, userID, projectID, commentID)
		if badUUID(err) || (err == nil && tag.RowsAffected() == 0) {
			return domain.ErrCommentNotFound
		}
		if err != nil {
			return fmt.Errorf("delete comment: %w", err)
		}
		rec, err = scan(tx.QueryRow(ctx, `UPDATE interests SET comment_count = comment_count - 1, updated_at = $3
			WHERE user_id = $1 AND project_id = $2 RETURNING `+columns, userID, projectID, now))
		return err
	})
	return rec, err
}

// DeleteUser implements domain.Records; comments go with their records,
// and the calendar link with them.
func (r *Repo) DeleteUser(ctx context.Context, userID string) error {
	if _, err := r.pool.Exec(ctx, `DELETE FROM interests WHERE user_id = $1`, userID); err != nil {
		return fmt.Errorf("delete user's records: %w", err)
	}
	if _, err := r.pool.Exec(ctx, `DELETE FROM calendar_feeds WHERE user_id = $1`, userID); err != nil {
		return fmt.Errorf("delete user's calendar link: %w", err)
	}
	return nil
}

// Feed implements domain.Feeds.
func (r *Repo) Feed(ctx context.Context, userID string) (domain.Feed, bool, error) {
	f := domain.Feed{UserID: userID}
	err := r.pool.QueryRow(ctx, `SELECT created_at FROM calendar_feeds WHERE user_id = $1`, userID).Scan(&f.Created)
	if errors.Is(err, pgx.ErrNoRows) {
		return f, false, nil
	}
	if err != nil {
		return f, false, fmt.Errorf("read calendar link: %w", err)
	}
	return f, true, nil
}

// RotateFeed implements domain.Feeds: the new hash replaces the old one in
// one statement, so the old link stops with the same commit.
func (r *Repo) RotateFeed(ctx context.Context, userID string, hash []byte, now time.Time) (domain.Feed, error) {
	if _, err := r.pool.Exec(ctx, `INSERT INTO calendar_feeds (user_id, token_hash, created_at) VALUES ($1, $2, $3)
		ON CONFLICT (user_id) DO UPDATE SET token_hash = EXCLUDED.token_hash, created_at = EXCLUDED.created_at`, userID, hash, now); err != nil {
		return domain.Feed{}, fmt.Errorf("write calendar link: %w", err)
	}
	return domain.Feed{UserID: userID, Created: now}, nil
}

// RevokeFeed implements domain.Feeds.
func (r *Repo) RevokeFeed(ctx context.Context, userID string) (bool, error) {
	tag, err := r.pool.Exec(ctx, `DELETE FROM calendar_feeds WHERE user_id = $1`, userID)
	if err != nil {
		return false, fmt.Errorf("revoke calendar link: %w", err)
	}
	return tag.RowsAffected() > 0, nil
}

// FeedOwner implements domain.Feeds.
func (r *Repo) FeedOwner(ctx context.Context, hash []byte) (string, bool, error) {
	var user string
	err := r.pool.QueryRow(ctx, `SELECT user_id FROM calendar_feeds WHERE token_hash = $1`, hash).Scan(&user)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("find calendar link: %w", err)
	}
	return user, true, nil
}
