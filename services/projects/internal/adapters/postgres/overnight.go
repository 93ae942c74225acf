package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"bidradar/pkg/pgdb"
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

// RecordDigests writes the searches' digests of their day and their
// events in one transaction: a few statements for the batch, not four per
// digest (a night has tens of thousands). Projects a search has already
// told about (criteria_matches, shared with the instant alerts) are left
// out, and are recorded as told. A search that already has its digest of
// the day, was deleted, or found nothing new writes nothing (no digest row
// either: a later run of the day may still tell it). It returns how many
// digests it wrote.
func (r *Repo) RecordDigests(ctx context.Context, ds []domain.OvernightDigest, now time.Time) (int, error) {
	if len(ds) == 0 {
		return 0, nil
	}
	// Search and event ids go to PostgreSQL as 16-byte keys (pgdb.UUIDs):
	// a night passes millions of (search, project) pairs.
	days := make([]time.Time, len(ds))
	cids := make([]domain.SearchKey, len(ds))
	eids := make([]string, len(ds))
	at := make(map[digestKey]int, len(ds))
	for i := range ds {
		k, ok := ds[i].Criteria.SearchKey()
		if !ok {
			return 0, fmt.Errorf("record digests: search id %q", ds[i].Criteria.ID)
		}
		days[i], cids[i], eids[i] = ds[i].Day, k, domain.OvernightEventID(ds[i].Criteria.ID, ds[i].Day)
		at[digestKey{k, ds[i].Day.Format(time.DateOnly)}] = i // as day::text reads back
	}
	eventKeys, err := pgdb.UUIDs(eids)
	if err != nil {
		return 0, fmt.Errorf("record digests: %w", err)
	}
	wrote := 0
	err = pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
		wrote = 0
		claimed, switched, err := claimDigests(ctx, tx, days, cids, eventKeys, at, now)
		if err != nil {
			return err
		}
		if len(claimed) == 0 {
			return nil
		}
		toldInstantly, err := toldBefore(ctx, tx, ds, claimed, cids, switched)
		if err != nil {
			return err
		}
		fresh, err := recordTold(ctx, tx, ds, claimed, cids, toldInstantly, now)
		if err != nil {
			return err
		}
		var emptyDays, toldDays []time.Time
		var emptyKeys, toldKeys []domain.SearchKey
		var counts []int
		var evs []domain.Event
		for _, i := range claimed {
			d := ds[i]
			out := d
			out.Projects = nil
			for _, p := range d.Projects {
				if k := (searchProject{cids[i], p.ID}); fresh[k] {
					out.Projects = append(out.Projects, p)
					delete(fresh, k) // a project named twice is told once
				}
			}
			if len(out.Projects) == 0 {
				emptyDays, emptyKeys = append(emptyDays, d.Day), append(emptyKeys, cids[i])
				continue
			}
			toldDays, toldKeys, counts = append(toldDays, d.Day), append(toldKeys, cids[i]), append(counts, len(out.Projects))
			evs = append(evs, domain.Event{ID: eids[i], Kind: domain.EventCriteriaMatched, At: now, Digest: &out})
		}
		if len(emptyKeys) > 0 {
			if _, err := tx.Exec(ctx, `DELETE FROM overnight_digests o USING unnest($1::date[], $2::uuid[]) AS e (day, criteria_id)
				WHERE o.day = e.day AND o.criteria_id = e.criteria_id`, emptyDays, emptyKeys); err != nil {
				return err
			}
		}
		if len(toldKeys) > 0 {
			if _, err := tx.Exec(ctx, `UPDATE overnight_digests o SET projects = u.n
				FROM unnest($1::date[], $2::uuid[], $3::int[]) AS u (day, criteria_id, n)
				WHERE o.day = u.day AND o.criteria_id = u.criteria_id`, toldDays, toldKeys, counts); err != nil {
				return err
			}
		}
		wrote = len(evs)
		return r.enqueue(ctx, tx, evs)
	})
	if err != nil {
		return 0, fmt.Errorf("record %d digests: %w", len(ds), err)
	}
	return wrote, nil
}

// digestKey is a digest's search and day (as day::text reads back).
type digestKey struct {
	criteria domain.SearchKey
	day      string
}

// claimDigests inserts the digest rows of the day, the gate of a digest a
// day: the searches told by an earlier run of the day (and the deleted
// ones, and those no longer overnight) are not claimed. It returns the
// claimed digests (indexes into the batch, found through at) and which of
// their searches once alerted instantly (was_instant, as it is now, not as
// the run loaded it).
func claimDigests(ctx context.Context, tx pgx.Tx, days []time.Time, cids []domain.SearchKey, eventKeys [][16]byte, at map[digestKey]int, now time.Time) ([]int, map[domain.SearchKey]bool, error) {
	rows, err := tx.Query(ctx, `WITH claimed AS (
			INSERT INTO overnight_digests (day, criteria_id, event_id, projects, created_at)
			SELECT d.day, c.id, d.event_id, 0, $4 FROM unnest($1::date[], $2::uuid[], $3::uuid[]) AS d (day, criteria_id, event_id)
			JOIN search_criteria c ON c.id = d.criteria_id AND c.search_type = 'overnight'
			ORDER BY 1, 2
			ON CONFLICT DO NOTHING RETURNING criteria_id, day)
		SELECT k.criteria_id, k.day::text, c.was_instant FROM claimed k JOIN search_criteria c ON c.id = k.criteria_id`,
		days, cids, eventKeys, now)
	if err != nil {
		return nil, nil, err
	}
	var claimed []int
	switched := map[domain.SearchKey]bool{}
	var k digestKey
	var wasInstant bool
	if _, err := pgx.ForEachRow(rows, []any{&k.criteria, &k.day, &wasInstant}, func() error {
		i, ok := at[k]
		if !ok {
			return fmt.Errorf("claimed %v, not asked for", k)
		}
		claimed = append(claimed, i)
		if wasInstant {
			switched[k.criteria] = true
		}
		return nil
	}); err != nil {
		return nil, nil, err
	}
	return claimed, switched, nil
}

// recordTold records the projects of the claimed digests as told by their
// searches (criteria_matches), but for those told instantly before, and
// returns the pairs it newly recorded: a pair recorded before was told by
// an earlier digest. The digests' foreign key locked their searches
// against deletion until commit (criteria_matches has none: migration 12).
func recordTold(ctx context.Context, tx pgx.Tx, ds []domain.OvernightDigest, claimed []int, cids []domain.SearchKey,
	toldInstantly map[searchProject]bool, now time.Time) (map[searchProject]bool, error) {
	var mc []domain.SearchKey
	var mp []string
	for _, i := range claimed {
		for _, p := range ds[i].Projects {
			if !toldInstantly[searchProject{cids[i], p.ID}] {
				mc, mp = append(mc, cids[i]), append(mp, p.ID)
			}
		}
	}
	rows, err := tx.Query(ctx, `INSERT INTO criteria_matches (criteria_id, project_id, matched_at)
		SELECT m.criteria_id, m.project_id, $3 FROM unnest($1::uuid[], $2::text[]) AS m (criteria_id, project_id)
		ORDER BY 1, 2
		ON CONFLICT DO NOTHING RETURNING criteria_id, project_id`, mc, mp, now)
	if err != nil {
		return nil, err
	}
	fresh := make(map[searchProject]bool, len(mc))
	var m searchProject
	if _, err := pgx.ForEachRow(rows, []any{&m.criteria, &m.project}, func() error {
		fresh[m] = true
		return nil
	}); err != nil {
		return nil, err
	}
	return fresh, nil
}

// searchProject is a search and a project it told about.
type searchProject struct {
	criteria domain.SearchKey
	project  string
}

// toldBefore returns which projects of the claimed digests their search
// already alerted about instantly, before it became an overnight search:
// only the switched searches (was_instant) can have any.
func toldBefore(ctx context.Context, tx pgx.Tx, ds []domain.OvernightDigest, claimed []int, cids []domain.SearchKey,
	switched map[domain.SearchKey]bool,
) (map[searchProject]bool, error) {
	var projects []string
	for _, i := range claimed {
		if switched[cids[i]] {
			for _, p := range ds[i].Projects {
				projects = append(projects, p.ID)
			}
		}
	}
	if len(projects) == 0 {
		return nil, nil
	}
	rows, err := tx.Query(ctx, `SELECT project_id, told FROM project_alerts WHERE project_id = ANY($1)`, projects)
	if err != nil {
		return nil, fmt.Errorf("told instantly: %w", err)
	}
	told := map[searchProject]bool{}
	var pid string
	var keys []byte
	_, err = pgx.ForEachRow(rows, []any{&pid, &keys}, func() error {
		for k := range toldKeys(keys) {
			if switched[k] {
				told[searchProject{k, pid}] = true
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("told instantly: %w", err)
	}
	return told, nil
}
