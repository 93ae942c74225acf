package postgres

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"bidradar/services/projects/internal/domain"
)

// recordMatches records, inside tx, for each project, the saved normal
// searches it matches that have not alerted about it before
// (project_alerts, one row a project holding their keys: migrations 13
// and 14), and returns one project.matched event a project (at most
// domain.MaxMatchesPerEvent searches each) for the caller to write to the
// outbox in the same transaction. Searches already told, repeated in ms, or
// deleted since the index was loaded at version asOf tell nothing. It also
// returns how many matches were new. Rows are locked and written in
// project order, so concurrent writes of the same projects wait for each
// other instead of deadlocking; the events keep the order of ms.
func recordMatches(ctx context.Context, tx pgx.Tx, ms []domain.ProjectMatches, asOf int64, now time.Time) ([]domain.Event, int, error) {
	byProject, order, matched := groupMatches(ms)
	if matched == 0 {
		return nil, 0, nil
	}
	live, err := liveSince(ctx, tx, asOf, byProject, order)
	if err != nil {
		return nil, 0, err
	}
	rows := toldRows{tx: tx, told: map[string]map[domain.SearchKey]bool{}, live: live}
	sorted := slices.Sorted(slices.Values(order))
	if err := rows.lock(ctx, sorted); err != nil {
		return nil, 0, fmt.Errorf("record matches: lock told: %w", err)
	}
	if err := rows.insertNew(ctx, sorted, byProject, now); err != nil {
		return nil, 0, err
	}
	if err := rows.extend(ctx, sorted, byProject, now); err != nil {
		return nil, 0, err
	}
	var evs []domain.Event
	n := 0
	for _, pid := range order {
		w := byProject[pid]
		n += len(w.fresh)
		for _, chunk := range (domain.ProjectMatches{Project: w.project, Keys: w.fresh}).Chunks() {
			evs = append(evs, domain.Event{ID: newID(), Kind: domain.EventProjectMatched, At: now,
				Matched: &domain.ProjectMatches{Project: w.project, Keys: chunk, AsOf: asOf}})
		}
	}
	return evs, n, nil
}

// wanted is a project's matched searches, and those of them it has not
// been told about before (fresh, set by toldRows.fresh).
type wanted struct {
	project *domain.Project
	keys    []domain.SearchKey
	fresh   []domain.SearchKey
}

// groupMatches merges ms by project (a project met twice matches the
// searches of both, each once) and returns the projects in the order first
// met and the number of matches.
func groupMatches(ms []domain.ProjectMatches) (map[string]*wanted, []string, int) {
	byProject := make(map[string]*wanted, len(ms))
	var order []string // projects, as first met in ms
	for _, m := range ms {
		w, again := byProject[m.Project.ID]
		if !again {
			// Clipped: a project met again below appends to a copy.
			byProject[m.Project.ID] = &wanted{project: m.Project, keys: slices.Clip(m.Keys)}
			order = append(order, m.Project.ID)
			continue
		}
		for _, k := range m.Keys {
			if !slices.Contains(w.keys, k) { // a project met twice in ms
				w.keys = append(w.keys, k)
			}
		}
	}
	matched := 0
	for _, w := range byProject {
		matched += len(w.keys)
	}
	return byProject, order, matched
}

// liveSince returns which of the matched searches still exist, read again
// only when one changed since the index was loaded at version asOf (nil:
// all of them; a batch names ~16,000: reading them was half its time). One
// deleted after this read is as if deleted just after the batch: its id in
// project_alerts names nobody.
func liveSince(ctx context.Context, tx pgx.Tx, asOf int64, byProject map[string]*wanted, order []string) (map[domain.SearchKey]bool, error) {
	var v int64
	if err := tx.QueryRow(ctx, `SELECT v FROM criteria_version`).Scan(&v); err != nil {
		return nil, fmt.Errorf("record matches: criteria version: %w", err)
	}
	if v == asOf {
		return nil, nil
	}
	var keys []domain.SearchKey
	for _, pid := range order {
		keys = append(keys, byProject[pid].keys...)
	}
	live, err := liveSearches(ctx, tx, keys)
	if err != nil {
		return nil, fmt.Errorf("record matches: live searches: %w", err)
	}
	return live, nil
}

// toldRows are the project_alerts rows of a write's projects, locked in
// its transaction: the searches that have told each project.
type toldRows struct {
	tx   pgx.Tx
	told map[string]map[domain.SearchKey]bool // by project; absent: no row
	live map[domain.SearchKey]bool            // nil: every search
}

// lock reads and locks the rows of projects (in their order).
func (r *toldRows) lock(ctx context.Context, projects []string) error {
	rows, err := r.tx.Query(ctx, `SELECT project_id, told FROM project_alerts
		WHERE project_id = ANY($1) ORDER BY project_id FOR UPDATE`, projects)
	if err != nil {
		return err
	}
	var pid string
	var keys []byte
	_, err = pgx.ForEachRow(rows, []any{&pid, &keys}, func() error {
		set := make(map[domain.SearchKey]bool, len(keys)/16)
		for k := range toldKeys(keys) {
			set[k] = true
		}
		r.told[pid] = set
		return nil
	})
	return err
}

// fresh keeps the searches of w not told before, and returns their keys
// end to end (a project_alerts.told).
func (r *toldRows) fresh(w *wanted) []byte {
	if w.fresh == nil {
		w.fresh = make([]domain.SearchKey, 0, len(w.keys))
	}
	w.fresh = w.fresh[:0]
	keys := make([]byte, 0, 16*len(w.keys))
	for _, k := range w.keys {
		if (r.live == nil || r.live[k]) && !r.told[w.project.ID][k] {
			w.fresh, keys = append(w.fresh, k), append(keys, k[:]...)
		}
	}
	return keys
}

// insertNew writes a row for each project told nothing yet, with all its
// searches. One another batch inserted meanwhile is locked, to be
// extended by extend.
func (r *toldRows) insertNew(ctx context.Context, sorted []string, byProject map[string]*wanted, now time.Time) error {
	var newP []string
	var newKeys [][]byte
	for _, pid := range sorted {
		if _, ok := r.told[pid]; !ok {
			if keys := r.fresh(byProject[pid]); len(keys) > 0 {
				newP, newKeys = append(newP, pid), append(newKeys, keys)
			}
		}
	}
	if len(newP) == 0 {
		return nil
	}
	inserted := make(map[string]bool, len(newP))
	if err := collect(ctx, r.tx, inserted, `INSERT INTO project_alerts (project_id, told, updated_at)
		SELECT u.project_id, u.told, $3 FROM unnest($1::text[], $2::bytea[]) AS u (project_id, told)
		ORDER BY 1 ON CONFLICT DO NOTHING RETURNING project_id`, newP, newKeys, now); err != nil {
		return fmt.Errorf("record matches: insert: %w", err)
	}
	var raced []string
	for _, pid := range newP {
		if !inserted[pid] {
			raced = append(raced, pid)
		}
	}
	if len(raced) > 0 {
		if err := r.lock(ctx, raced); err != nil {
			return fmt.Errorf("record matches: lock told: %w", err)
		}
	}
	return nil
}

// extend appends their new searches to the rows of the projects told before.
func (r *toldRows) extend(ctx context.Context, sorted []string, byProject map[string]*wanted, now time.Time) error {
	var oldP []string
	var oldKeys [][]byte
	for _, pid := range sorted {
		if _, ok := r.told[pid]; ok {
			if keys := r.fresh(byProject[pid]); len(keys) > 0 {
				oldP, oldKeys = append(oldP, pid), append(oldKeys, keys)
			}
		}
	}
	if len(oldP) == 0 {
		return nil
	}
	if _, err := r.tx.Exec(ctx, `UPDATE project_alerts a SET told = a.told || u.told, updated_at = $3
		FROM unnest($1::text[], $2::bytea[]) AS u (project_id, told) WHERE a.project_id = u.project_id`,
		oldP, oldKeys, now); err != nil {
		return fmt.Errorf("record matches: extend: %w", err)
	}
	return nil
}

// toldKeys yields the search keys of a project_alerts.told (16 bytes each,
// end to end).
func toldKeys(told []byte) iter.Seq[domain.SearchKey] {
	return func(yield func(domain.SearchKey) bool) {
		for i := 0; i+16 <= len(told); i += 16 {
			if !yield(domain.SearchKey(told[i : i+16])) {
				return
			}
		}
	}
}

// liveSearches returns which of the searches keys still exist (the keys
// go and come back as 16 bytes: see pgdb.UUIDs).
func liveSearches(ctx context.Context, tx pgx.Tx, keys []domain.SearchKey) (map[domain.SearchKey]bool, error) {
	distinct := make([]domain.SearchKey, 0, len(keys))
	seen := make(map[domain.SearchKey]bool, len(keys))
	for _, k := range keys {
		if !seen[k] {
			seen[k] = true
			distinct = append(distinct, k)
		}
	}
	rows, err := tx.Query(ctx, `SELECT id FROM search_criteria WHERE id = ANY($1::uuid[])`, distinct)
	if err != nil {
		return nil, err
	}
	live := make(map[domain.SearchKey]bool, len(distinct))
	var k domain.SearchKey
	_, err = pgx.ForEachRow(rows, []any{&k}, func() error {
		live[k] = true
		return nil
	})
	return live, err
}

// collect adds the single text column of a query's rows to set.
func collect(ctx context.Context, tx pgx.Tx, set map[string]bool, sql string, args ...any) error {
	rows, err := tx.Query(ctx, sql, args...)
	if err != nil {
		return err
	}
	var v string
	_, err = pgx.ForEachRow(rows, []any{&v}, func() error {
		set[v] = true
		return nil
	})
	return err
}
