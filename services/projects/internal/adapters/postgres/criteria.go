package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"bidradar/services/projects/internal/domain"
)

// CriteriaStore keeps saved search criteria and the per-project refresh
// cooldowns (migration 00002).
type CriteriaStore struct{ pool *pgxpool.Pool }

// NewCriteriaStore returns the store on pool.
func NewCriteriaStore(pool *pgxpool.Pool) *CriteriaStore { return &CriteriaStore{pool: pool} }

var uuidRe = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// ValidCriteriaID reports whether id has the form of a saved criteria id.
func ValidCriteriaID(id string) bool { return uuidRe.MatchString(id) }

const criteriaColumns = `id::text, user_id, name, search_type, criteria, created_at, last_run_at, last_match_count`

func scanCriteria(row pgx.Row) (domain.SavedCriteria, error) {
	var c domain.SavedCriteria
	var raw []byte
	if err := row.Scan(&c.ID, &c.UserID, &c.Name, &c.SearchType, &raw, &c.CreatedAt, &c.LastRunAt, &c.LastMatchCount); err != nil {
		return c, err
	}
	if err := json.Unmarshal(raw, &c.Form); err != nil {
		return c, fmt.Errorf("saved criteria %s: %w", c.ID, err)
	}
	c.Key, _ = domain.ParseSearchKey(c.ID)
	return c, nil
}

// roomLockClass is the first key of the advisory lock that makes a user's
// checked writes of saved searches take turns (the second is the user).
const roomLockClass = 0x5ea4c4

// checkRoom runs check against every search of the user inside tx, after
// taking the user's lock: a concurrent checked write waits for this
// transaction, so it sees this one's row.
func checkRoom(ctx context.Context, tx pgx.Tx, userID string, check domain.RoomCheck) error {
	if check == nil {
		return nil
	}
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, roomLockClass, userID); err != nil {
		return fmt.Errorf("lock saved searches: %w", err)
	}
	rows, err := tx.Query(ctx, `SELECT `+criteriaColumns+` FROM search_criteria WHERE user_id = $1`, userID)
	if err != nil {
		return fmt.Errorf("read saved searches: %w", err)
	}
	existing, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (domain.SavedCriteria, error) { return scanCriteria(r) })
	if err != nil {
		return fmt.Errorf("read saved searches: %w", err)
	}
	return check(existing)
}

// SaveCriteria implements domain.SavedCriteriaRepository.
func (s *CriteriaStore) SaveCriteria(ctx context.Context, c domain.SavedCriteria, check domain.RoomCheck) (domain.SavedCriteria, error) {
	raw, err := json.Marshal(c.Form)
	if err != nil {
		return c, err
	}
	var out domain.SavedCriteria
	var refused error
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if refused = checkRoom(ctx, tx, c.UserID, check); refused != nil {
			return refused
		}
		out, err = scanCriteria(tx.QueryRow(ctx, `INSERT INTO search_criteria (user_id, name, search_type, criteria, created_at)
			VALUES ($1, $2, $3, $4, $5) RETURNING `+criteriaColumns, c.UserID, c.Name, c.SearchType, raw, c.CreatedAt))
		return err
	})
	if refused != nil {
		return c, refused
	}
	if err != nil {
		return c, fmt.Errorf("save criteria: %w", err)
	}
	return out, nil
}

// ListCriteria implements domain.SavedCriteriaRepository.
func (s *CriteriaStore) ListCriteria(ctx context.Context, userID string, limit int) ([]domain.SavedCriteria, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+criteriaColumns+` FROM search_criteria WHERE user_id = $1
		ORDER BY created_at DESC, id DESC LIMIT $2`, userID, limit)
	if err != nil {
		return nil, fmt.Errorf("list criteria: %w", err)
	}
	defer rows.Close()
	out := []domain.SavedCriteria{}
	for rows.Next() {
		c, err := scanCriteria(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

func notFound(err error, id string) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("%w: %s", domain.ErrCriteriaNotFound, id)
	}
	return err
}

// GetCriteria implements domain.SavedCriteriaRepository.
func (s *CriteriaStore) GetCriteria(ctx context.Context, userID, id string) (domain.SavedCriteria, error) {
	if !ValidCriteriaID(id) {
		return domain.SavedCriteria{}, fmt.Errorf("%w: %s", domain.ErrCriteriaNotFound, id)
	}
	c, err := scanCriteria(s.pool.QueryRow(ctx, `SELECT `+criteriaColumns+` FROM search_criteria WHERE id = $1 AND user_id = $2`, id, userID))
	return c, notFound(err, id)
}

// RecordCriteriaRun implements domain.SavedCriteriaRepository.
func (s *CriteriaStore) RecordCriteriaRun(ctx context.Context, userID, id string, at time.Time, matches int64) error {
	if !ValidCriteriaID(id) {
		return fmt.Errorf("%w: %s", domain.ErrCriteriaNotFound, id)
	}
	tag, err := s.pool.Exec(ctx, `UPDATE search_criteria SET last_run_at = $3, last_match_count = $4
		WHERE id = $1 AND user_id = $2`, id, userID, at, matches)
	if err != nil {
		return fmt.Errorf("record criteria run: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("%w: %s", domain.ErrCriteriaNotFound, id)
	}
	return nil
}

// UpdateCriteria implements domain.SavedCriteriaRepository. The
// search_criteria_changed trigger bumps criteria_version, so every
// replica's instant-alert matcher reloads the edited search. Its alert
// history stays, also across a switch of type: a project the user was
// already told about is not announced again because the search changed.
// Instant alerts remember by project (project_alerts) and overnight
// digests by search (criteria_matches), so a search leaving instant alerts
// is marked was_instant (its digests then read project_alerts), and one
// joining them has its digested projects added to project_alerts.
func (s *CriteriaStore) UpdateCriteria(ctx context.Context, c domain.SavedCriteria, wasType string, check domain.RoomCheck) (domain.SavedCriteria, error) {
	if !ValidCriteriaID(c.ID) {
		return c, fmt.Errorf("%w: %s", domain.ErrCriteriaNotFound, c.ID)
	}
	raw, err := json.Marshal(c.Form)
	if err != nil {
		return c, err
	}
	var out domain.SavedCriteria
	var refused error
	// The copy may deadlock with an instant-alert batch extending the same
	// rows (it locks old rows, then new ones): PostgreSQL aborts one, and
	// the update is tried again.
	err = retryOnDeadlock(3, func() error {
		return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			if refused = checkRoom(ctx, tx, c.UserID, check); refused != nil {
				return refused
			}
			var err error
			out, err = scanCriteria(tx.QueryRow(ctx, `UPDATE search_criteria
				SET name = $4, search_type = $5, criteria = $6, last_run_at = NULL, last_match_count = 0,
					was_instant = was_instant OR (search_type = 'normal' AND $5 <> 'normal')
				WHERE id = $1 AND user_id = $2 AND search_type = $3 RETURNING `+criteriaColumns,
				c.ID, c.UserID, wasType, c.Name, c.SearchType, raw))
			if err != nil || wasType == domain.SearchNormal || c.SearchType != domain.SearchNormal {
				return err
			}
			// Rows in project order, as the instant alerts lock them.
			_, err = tx.Exec(ctx, `INSERT INTO project_alerts (project_id, told, updated_at)
				SELECT m.project_id, uuid_send(m.criteria_id), now() FROM criteria_matches m
				WHERE m.criteria_id = $1 ORDER BY m.project_id
				ON CONFLICT (project_id) DO UPDATE SET told = project_alerts.told || EXCLUDED.told, updated_at = EXCLUDED.updated_at`, c.ID)
			return err
		})
	})
	if refused != nil {
		return c, refused
	}
	if errors.Is(err, pgx.ErrNoRows) {
		var exists bool
		if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM search_criteria WHERE id = $1 AND user_id = $2)`, c.ID, c.UserID).Scan(&exists); err != nil {
			return c, fmt.Errorf("update criteria: %w", err)
		}
		if exists {
			return c, fmt.Errorf("%w: %s", domain.ErrCriteriaChanged, c.ID)
		}
		return c, fmt.Errorf("%w: %s", domain.ErrCriteriaNotFound, c.ID)
	}
	if err != nil {
		return c, fmt.Errorf("update criteria: %w", err)
	}
	return out, nil
}

// DeleteCriteria implements domain.SavedCriteriaRepository.
func (s *CriteriaStore) DeleteCriteria(ctx context.Context, userID, id string) (domain.SavedCriteria, error) {
	if !ValidCriteriaID(id) {
		return domain.SavedCriteria{}, fmt.Errorf("%w: %s", domain.ErrCriteriaNotFound, id)
	}
	c, err := scanCriteria(s.pool.QueryRow(ctx, `DELETE FROM search_criteria WHERE id = $1 AND user_id = $2 RETURNING `+criteriaColumns, id, userID))
	return c, notFound(err, id)
}

// DeleteUserCriteria implements domain.SavedCriteriaRepository; the
// searches' alert history goes with them.
func (s *CriteriaStore) DeleteUserCriteria(ctx context.Context, userID string) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM search_criteria WHERE user_id = $1`, userID); err != nil {
		return fmt.Errorf("delete user's criteria: %w", err)
	}
	return nil
}

// Claim implements domain.CooldownStore. The row is inserted or locked in
// one transaction, so concurrent replicas cannot both win.
func (s *CriteriaStore) Claim(ctx context.Context, id string, now time.Time, cooldown time.Duration) (won bool, last, prev time.Time, err error) {
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		won, last, prev = false, time.Time{}, time.Time{}
		tag, err := tx.Exec(ctx, `INSERT INTO project_refreshes (project_id, refreshed_at) VALUES ($1, $2)
			ON CONFLICT (project_id) DO NOTHING`, id, now)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 1 {
			won, last = true, now
			return nil
		}
		var cur time.Time
		if err := tx.QueryRow(ctx, `SELECT refreshed_at FROM project_refreshes WHERE project_id = $1 FOR UPDATE`, id).Scan(&cur); err != nil {
			return err
		}
		if now.Sub(cur) < cooldown {
			last = cur
			return nil
		}
		won, last, prev = true, now, cur
		_, err = tx.Exec(ctx, `UPDATE project_refreshes SET refreshed_at = $2 WHERE project_id = $1`, id, now)
		return err
	})
	if err != nil {
		return false, time.Time{}, time.Time{}, fmt.Errorf("claim refresh of %s: %w", id, err)
	}
	return won, last, prev, nil
}

// Release implements domain.CooldownStore.
func (s *CriteriaStore) Release(ctx context.Context, id string, claimed, prev time.Time) error {
	var err error
	if prev.IsZero() {
		_, err = s.pool.Exec(ctx, `DELETE FROM project_refreshes WHERE project_id = $1 AND refreshed_at = $2`, id, claimed)
	} else {
		_, err = s.pool.Exec(ctx, `UPDATE project_refreshes SET refreshed_at = $3 WHERE project_id = $1 AND refreshed_at = $2`, id, claimed, prev)
	}
	if err != nil {
		return fmt.Errorf("release refresh of %s: %w", id, err)
	}
	return nil
}

// CriteriaVersion is a number every change of the saved searches moves
// (a trigger keeps it): the cue to reload them.
func (s *CriteriaStore) CriteriaVersion(ctx context.Context) (int64, error) {
	var v int64
	if err := s.pool.QueryRow(ctx, `SELECT v FROM criteria_version`).Scan(&v); err != nil {
		return 0, fmt.Errorf("criteria version: %w", err)
	}
	return v, nil
}

// SearchOwners implements domain.SavedCriteriaRepository. One statement,
// so the version and the searches come from one snapshot; the LEFT JOIN
// gives the version a row even when no search is found.
func (s *CriteriaStore) SearchOwners(ctx context.Context, keys []domain.SearchKey) ([]domain.SavedCriteria, int64, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT v.v, s.id, s.user_id, s.name
		FROM criteria_version v LEFT JOIN search_criteria s ON s.id = ANY($1::uuid[])`, keys)
	if err != nil {
		return nil, 0, fmt.Errorf("search owners: %w", err)
	}
	var out []domain.SavedCriteria
	var (
		ver          int64
		key          *domain.SearchKey
		userID, name *string
	)
	_, err = pgx.ForEachRow(rows, []any{&ver, &key, &userID, &name}, func() error {
		if key != nil {
			out = append(out, domain.SavedCriteria{ID: key.String(), Key: *key, UserID: *userID, Name: *name})
		}
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("search owners: %w", err)
	}
	return out, ver, nil
}

// NormalCriteria returns every saved normal search (the instant alerts) and
// the version they were read at.
func (s *CriteriaStore) NormalCriteria(ctx context.Context) ([]domain.SavedCriteria, int64, error) {
	var out []domain.SavedCriteria
	var v int64
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `SELECT v FROM criteria_version`).Scan(&v); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT `+criteriaColumns+` FROM search_criteria WHERE search_type = 'normal' ORDER BY created_at, id`)
		if err != nil {
			return err
		}
		defer rows.Close()
		out = out[:0]
		for rows.Next() {
			c, err := scanCriteria(rows)
			if err != nil {
				return err
			}
			out = append(out, c)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, 0, fmt.Errorf("normal criteria: %w", err)
	}
	return out, v, nil
}

// retryOnDeadlock runs fn up to attempts times while PostgreSQL aborts it
// as a deadlock victim.
func retryOnDeadlock(attempts int, fn func() error) error {
	var err error
	for range attempts {
		var pgErr *pgconn.PgError
		if err = fn(); !errors.As(err, &pgErr) || pgErr.Code != "40P01" {
			return err
		}
	}
	return err
}
