package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"bidradar/services/projects/internal/domain"
)

// ClaimOvernight claims the run of day (migration 00008) for lease: a new
// run, or one whose lease ran out unfinished (a crash: resumed over its
// window), or, with rerun, a finished one (a new window ending now). ok is
// false when another replica holds the lease, or the run is finished and
// rerun is off.
func (r *Repo) ClaimOvernight(ctx context.Context, day, now time.Time, lease time.Duration, rerun bool) (from, to time.Time, ok bool, err error) {
	err = r.pool.QueryRow(ctx, `INSERT INTO overnight_runs AS o (day, window_from, window_to, started_at, lease_until)
		VALUES ($1, $2, $3, $3, $4)
		ON CONFLICT (day) DO UPDATE SET lease_until = $4, attempts = o.attempts + 1,
			started_at = CASE WHEN o.finished_at IS NULL THEN o.started_at ELSE $3 END,
			window_from = CASE WHEN o.finished_at IS NULL THEN o.window_from ELSE $2 END,
			window_to = CASE WHEN o.finished_at IS NULL THEN o.window_to ELSE $3 END,
			finished_at = NULL
		WHERE o.lease_until <= $3 AND (o.finished_at IS NULL OR $5)
		RETURNING window_from, window_to`,
		day, now.Add(-domain.OvernightWindow), now, now.Add(lease), rerun).Scan(&from, &to)
	if errors.Is(err, pgx.ErrNoRows) {
		return time.Time{}, time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, time.Time{}, false, fmt.Errorf("claim overnight run: %w", err)
	}
	return from, to, true, nil
}

// RenewOvernight extends the lease of a running run.
func (r *Repo) RenewOvernight(ctx context.Context, day, until time.Time) error {
	_, err := r.pool.Exec(ctx, `UPDATE overnight_runs SET lease_until = $2 WHERE day = $1 AND finished_at IS NULL`, day, until)
	return err
}

// FinishOvernight records the end of a run and releases its lease.
func (r *Repo) FinishOvernight(ctx context.Context, st domain.OvernightStats) error {
	_, err := r.pool.Exec(ctx, `UPDATE overnight_runs SET finished_at = $2, lease_until = $2,
		criteria = $3, projects = $4, digests = digests + $5 WHERE day = $1`,
		st.Day, st.FinishedAt, st.Criteria, st.ProjectsSeen, st.Digests)
	if err != nil {
		return fmt.Errorf("finish overnight run: %w", err)
	}
	return nil
}

// OvernightCriteria returns every saved overnight search.
func (r *Repo) OvernightCriteria(ctx context.Context) ([]domain.SavedCriteria, error) {
	rows, err := r.pool.Query(ctx, `SELECT `+criteriaColumns+` FROM search_criteria WHERE search_type = 'overnight' ORDER BY created_at, id`)
	if err != nil {
		return nil, fmt.Errorf("overnight criteria: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (domain.SavedCriteria, error) { return scanCriteria(row) })
}

// FirstSeen returns up to limit projects first seen in [from, to), after
// the (first seen, id) position of the previous page (zero: from the start).
func (r *Repo) FirstSeen(ctx context.Context, from, to time.Time, afterAt time.Time, afterID string, limit int) ([]domain.Project, error) {
	if afterAt.IsZero() {
		afterAt = from.Add(-time.Microsecond)
	}
	rows, err := r.pool.Query(ctx, "SELECT "+readColumns+` FROM projects
		WHERE first_seen_at >= $1 AND first_seen_at < $2 AND (first_seen_at, id) > ($3, $4)
		ORDER BY first_seen_at, id LIMIT $5`, from, to, afterAt, afterID, limit)
	if err != nil {
		return nil, fmt.Errorf("projects first seen: %w", err)
	}
	defer rows.Close()
	var out []domain.Project
	for rows.Next() {
		p, err := scanProject(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

var errNothingNew = errors.New("nothing new")

// RecordDigest writes a search's digest of the day and its event in one
// transaction. Projects the search has already told about (criteria_matches,
// shared with the instant alerts) are left out, and are recorded as told.
// It returns false, writing nothing, when the search already has its
// digest of the day, was deleted, or found nothing new.
func (r *Repo) RecordDigest(ctx context.Context, d domain.OvernightDigest, now time.Time) (bool, error) {
	eventID := domain.OvernightEventID(d.Criteria.ID, d.Day)
	ids := make([]string, len(d.Projects))
	for i, p := range d.Projects {
		ids[i] = p.ID
	}
	err := pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO overnight_digests (day, criteria_id, event_id, projects, created_at)
			SELECT $1, id, $3, 0, $4 FROM search_criteria WHERE id = $2
			ON CONFLICT DO NOTHING`, d.Day, d.Criteria.ID, eventID, now)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return errNothingNew
		}
		rows, err := tx.Query(ctx, `INSERT INTO criteria_matches (criteria_id, project_id, matched_at)
			SELECT $1, unnest($2::text[]), $3 ON CONFLICT DO NOTHING RETURNING project_id`, d.Criteria.ID, ids, now)
		if err != nil {
			return err
		}
		fresh, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return err
		}
		if len(fresh) == 0 {
			return errNothingNew
		}
		isNew := make(map[string]bool, len(fresh))
		for _, id := range fresh {
			isNew[id] = true
		}
		out := d
		out.Projects = nil
		for _, p := range d.Projects {
			if isNew[p.ID] {
				out.Projects = append(out.Projects, p)
				delete(isNew, p.ID)
			}
		}
		if _, err := tx.Exec(ctx, `UPDATE overnight_digests SET projects = $3 WHERE day = $1 AND criteria_id = $2`,
			d.Day, d.Criteria.ID, len(out.Projects)); err != nil {
			return err
		}
		return r.enqueue(ctx, tx, []domain.Event{{ID: eventID, Kind: domain.EventCriteriaMatched, At: now, Digest: &out}})
	})
	if errors.Is(err, errNothingNew) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("record digest of %s: %w", d.Criteria.ID, err)
	}
	return true, nil
}
