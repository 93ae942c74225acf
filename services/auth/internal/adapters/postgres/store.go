// Package postgres implements domain.Store with hand-written pgx queries
// against the service's own schema. Driver errors are translated into the
// domain's sentinels; events are written to the outbox in the transaction
// of the change they describe.
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

	"bidradar/pkg/outbox"
	"bidradar/pkg/pgdb"
	"bidradar/pkg/queue"
	"bidradar/services/auth/internal/domain"
	"bidradar/services/auth/migrations"
)

// Schema is the PostgreSQL schema the auth service owns.
const Schema = "auth"

// Migrate applies the job queue's table, the service's migrations and the outbox table.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	// The job queue first: a migration moves the older mail table's rows into it.
	if err := queue.Migrate(ctx, pool); err != nil {
		return err
	}
	if err := pgdb.Migrate(ctx, pool, Schema, migrations.FS); err != nil {
		return err
	}
	return outbox.Migrate(ctx, pool)
}

// Store is the PostgreSQL implementation of domain.Store.
type Store struct {
	pool *pgxpool.Pool
}

var _ domain.Store = (*Store)(nil)

// New returns a Store on pool (whose search_path starts with Schema).
func New(pool *pgxpool.Pool) (*Store, error) {
	if pool == nil {
		return nil, errors.New("postgres: nil pool")
	}
	return &Store{pool: pool}, nil
}

func (s *Store) tx(ctx context.Context, fn func(pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, s.pool, fn)
}

type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// ---- users ----

const userColumns = `id::text, username, email, name, picture_url, coalesce(line_id, ''), password_hash,
	active, two_step, created_at, verified_at, password_changed_at`

func scanUser(row pgx.Row) (domain.User, error) {
	var u domain.User
	var verified, pwChanged *time.Time
	err := row.Scan(&u.ID, &u.Username, &u.Email, &u.Name, &u.PictureURL, &u.LineID, &u.PasswordHash,
		&u.Active, &u.TwoStep, &u.CreatedAt, &verified, &pwChanged)
	if errors.Is(err, pgx.ErrNoRows) {
		return domain.User{}, domain.ErrUserNotFound
	}
	if err != nil {
		return domain.User{}, fmt.Errorf("scan user: %w", err)
	}
	if verified != nil {
		u.VerifiedAt = *verified
	}
	if pwChanged != nil {
		u.PasswordChangedAt = *pwChanged
	}
	return u, nil
}

// UserByID implements domain.Store.
func (s *Store) UserByID(ctx context.Context, id string) (domain.User, error) {
	return userByID(ctx, s.pool, id, false)
}

func userByID(ctx context.Context, q querier, id string, forUpdate bool) (domain.User, error) {
	if _, err := uuid.Parse(id); err != nil {
		return domain.User{}, domain.ErrUserNotFound
	}
	sql := `SELECT ` + userColumns + ` FROM users WHERE id = $1 AND deleted_at IS NULL`
	if forUpdate {
		sql += ` FOR UPDATE`
	}
	return scanUser(q.QueryRow(ctx, sql, id))
}

// UserByEmail implements domain.Store.
func (s *Store) UserByEmail(ctx context.Context, email string) (domain.User, error) {
	return scanUser(s.pool.QueryRow(ctx, `SELECT `+userColumns+` FROM users WHERE email = $1`, email))
}

// UserByLogin implements domain.Store.
func (s *Store) UserByLogin(ctx context.Context, login string) (domain.User, error) {
	return scanUser(s.pool.QueryRow(ctx, `SELECT `+userColumns+` FROM users
		WHERE lower(username) = lower($1) OR email = lower($1)
		ORDER BY (email = lower($1)) DESC LIMIT 1`, login))
}

// UserByLineID implements domain.Store.
func (s *Store) UserByLineID(ctx context.Context, lineID string) (domain.User, error) {
	return scanUser(s.pool.QueryRow(ctx, `SELECT `+userColumns+` FROM users WHERE line_id = $1`, lineID))
}

// UsernameTaken implements domain.Store.
func (s *Store) UsernameTaken(ctx context.Context, username string) (bool, error) {
	var taken bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM users WHERE lower(username) = lower($1))`, username).Scan(&taken)
	return taken, err
}

func nullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

func nullString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func insertUser(ctx context.Context, tx pgx.Tx, u domain.User) error {
	_, err := tx.Exec(ctx, `INSERT INTO users
		(id, username, email, name, picture_url, line_id, password_hash, active, two_step, created_at, verified_at, password_changed_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
		u.ID, u.Username, u.Email, u.Name, u.PictureURL, nullString(u.LineID), u.PasswordHash, u.Active, u.TwoStep,
		u.CreatedAt, nullTime(u.VerifiedAt), nullTime(u.PasswordChangedAt))
	return translateUserConflict(err)
}

func translateUserConflict(err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" {
		switch pgErr.ConstraintName {
		case "users_username_key":
			return domain.ErrUsernameTaken
		case "users_email_key":
			return domain.ErrEmailTaken
		case "users_line_id_key":
			return domain.ErrLineLinkedOther
		}
	}
	return err
}

// CreateUser implements domain.Store.
func (s *Store) CreateUser(ctx context.Context, u domain.User, ev domain.UserRegistered) error {
	return s.tx(ctx, func(tx pgx.Tx) error {
		if err := insertUser(ctx, tx, u); err != nil {
			return err
		}
		return enqueueRegistered(ctx, tx, ev)
	})
}

// ActivateUser implements domain.Store.
func (s *Store) ActivateUser(ctx context.Context, userID string, codeID int64, ev domain.UserVerified) (domain.User, error) {
	var u domain.User
	err := s.tx(ctx, func(tx pgx.Tx) error {
		if err := consumeCode(ctx, tx, codeID, ev.OccurredAt); err != nil {
			return err
		}
		var err error
		u, err = userByID(ctx, tx, userID, true)
		if err != nil {
			return err
		}
		if u.Active {
			return nil
		}
		if _, err := tx.Exec(ctx, `UPDATE users SET active = true, verified_at = $2, updated_at = $2 WHERE id = $1`,
			userID, ev.OccurredAt); err != nil {
			return err
		}
		u.Active, u.VerifiedAt = true, ev.OccurredAt
		return enqueueVerified(ctx, tx, ev)
	})
	return u, err
}

// SetTwoStep implements domain.Store.
func (s *Store) SetTwoStep(ctx context.Context, userID string, enabled bool) error {
	tag, err := s.pool.Exec(ctx, `UPDATE users SET two_step = $2, updated_at = now() WHERE id = $1`, userID, enabled)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return domain.ErrUserNotFound
	}
	return nil
}

// SetPassword implements domain.Store.
func (s *Store) SetPassword(ctx context.Context, userID, hash, keepFamilyID string, consumeCodeID int64, now time.Time) error {
	return s.tx(ctx, func(tx pgx.Tx) error {
		if consumeCodeID != 0 {
			if err := consumeCode(ctx, tx, consumeCodeID, now); err != nil {
				return err
			}
		}
		tag, err := tx.Exec(ctx, `UPDATE users SET password_hash = $2, password_changed_at = $3, updated_at = $3 WHERE id = $1`,
			userID, hash, now)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return domain.ErrUserNotFound
		}
		return endSessions(ctx, tx, "password", "user_id = $3 AND id::text IS DISTINCT FROM $4", now, userID, keepFamilyID)
	})
}
