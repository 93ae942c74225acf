package postgres

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"bidradar/services/projects/internal/domain"
)

// RecordMatches records, for each project, the saved normal searches it
// matches that have not alerted about it before (project_alerts, one row a
// project: migration 13), and writes one project.matched event a project
// (at most domain.MaxMatchesPerEvent searches each) to the outbox in the
// same transaction. Searches already told, repeated in the batch, or
// deleted since the matcher loaded them at version asOf tell nothing. It
// returns how many matches were new. Rows are locked and written in project order, so
// concurrent batches of the same projects wait for each other instead of
// deadlocking; the events keep the order of ms.
func (r *Repo) RecordMatches(ctx context.Context, ms []domain.ProjectMatches, asOf int64, now time.Time) (int, error) {
	type wanted struct {
		project  *domain.Project
		searches []*domain.SavedCriteria
		ids      []string // the searches' ids as uuid::text reads them back
		fresh    []*domain.SavedCriteria
	}
	byProject := make(map[string]*wanted, len(ms))
	var order []string     // projects, as first met in ms
	var searchIDs []string // distinct
	seenSearch := map[string]bool{}
	for _, m := range ms {
		w, again := byProject[m.Project.ID]
		var had map[string]bool // only for a project met twice in the batch
		if again {
			had = make(map[string]bool, len(w.ids))
			for _, id := range w.ids {
				had[id] = true
			}
		} else {
			w = &wanted{project: m.Project}
			byProject[m.Project.ID] = w
			order = append(order, m.Project.ID)
		}
		for _, c := range m.Searches {
			id := strings.ToLower(c.ID)
			if had[id] {
				continue
			}
			if had != nil {
				had[id] = true
			}
			w.searches, w.ids = append(w.searches, c), append(w.ids, id)
			if !seenSearch[id] {
				seenSearch[id] = true
				searchIDs = append(searchIDs, id)
			}
		}
	}
	if len(searchIDs) == 0 {
		return 0, nil
	}
	sorted := slices.Sorted(slices.Values(order))
	n := 0
	err := pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
		n = 0
		// The searches are read again only when one changed since the
		// matcher loaded them (a batch names ~16,000: reading them was
		// half its time). One deleted after this read is as if deleted
		// just after the batch: its id in project_alerts names nobody.
		var live map[string]bool // nil: all of them
		var v int64
		if err := tx.QueryRow(ctx, `SELECT v FROM criteria_version`).Scan(&v); err != nil {
			return fmt.Errorf("record matches: criteria version: %w", err)
		}
		if v != asOf {
			live = make(map[string]bool, len(searchIDs))
			if err := collect(ctx, tx, live, `SELECT id::text FROM search_criteria WHERE id = ANY($1::uuid[])`, searchIDs); err != nil {
				return fmt.Errorf("record matches: live searches: %w", err)
			}
		}
		told := map[string]map[string]bool{}
		lockTold := func(projects []string) error {
			rows, err := tx.Query(ctx, `SELECT project_id, criteria_ids::text[] FROM project_alerts
				WHERE project_id = ANY($1) ORDER BY project_id FOR UPDATE`, projects)
			if err != nil {
				return err
			}
			var pid string
			var ids []string
			_, err = pgx.ForEachRow(rows, []any{&pid, &ids}, func() error {
				set := make(map[string]bool, len(ids))
				for _, id := range ids {
					set[id] = true
				}
				told[pid] = set
				return nil
			})
			return err
		}
		if err := lockTold(sorted); err != nil {
			return fmt.Errorf("record matches: lock told: %w", err)
		}
		freshOf := func(w *wanted) []string {
			w.fresh = w.fresh[:0]
			var ids []string
			for i, id := range w.ids {
				if (live == nil || live[id]) && !told[w.project.ID][id] {
					w.fresh, ids = append(w.fresh, w.searches[i]), append(ids, id)
				}
			}
			return ids
		}
		// Projects told nothing yet: a row with all their searches. One
		// another batch inserted meanwhile is locked and extended below.
		var newP, newIDs []string
		for _, pid := range sorted {
			if _, ok := told[pid]; !ok {
				if ids := freshOf(byProject[pid]); len(ids) > 0 {
					newP, newIDs = append(newP, pid), append(newIDs, strings.Join(ids, ","))
				}
			}
		}
		inserted := make(map[string]bool, len(newP))
		if len(newP) > 0 {
			if err := collect(ctx, tx, inserted, `INSERT INTO project_alerts (project_id, criteria_ids, updated_at)
				SELECT u.project_id, string_to_array(u.ids, ',')::uuid[], $3 FROM unnest($1::text[], $2::text[]) AS u (project_id, ids)
				ORDER BY 1 ON CONFLICT DO NOTHING RETURNING project_id`, newP, newIDs, now); err != nil {
				return fmt.Errorf("record matches: insert: %w", err)
			}
			var raced []string
			for _, pid := range newP {
				if !inserted[pid] {
					raced = append(raced, pid)
				}
			}
			if len(raced) > 0 {
				if err := lockTold(raced); err != nil {
					return fmt.Errorf("record matches: lock told: %w", err)
				}
			}
		}
		// Projects told before: their new searches appended.
		var oldP, oldIDs []string
		for _, pid := range sorted {
			if _, ok := told[pid]; ok {
				if ids := freshOf(byProject[pid]); len(ids) > 0 {
					oldP, oldIDs = append(oldP, pid), append(oldIDs, strings.Join(ids, ","))
				}
			}
		}
		if len(oldP) > 0 {
			if _, err := tx.Exec(ctx, `UPDATE project_alerts a
				SET criteria_ids = a.criteria_ids || string_to_array(u.ids, ',')::uuid[], updated_at = $3
				FROM unnest($1::text[], $2::text[]) AS u (project_id, ids) WHERE a.project_id = u.project_id`,
				oldP, oldIDs, now); err != nil {
				return fmt.Errorf("record matches: extend: %w", err)
			}
		}
		var evs []domain.Event
		for _, pid := range order {
			w := byProject[pid]
			n += len(w.fresh)
			for _, chunk := range (domain.ProjectMatches{Project: w.project, Searches: w.fresh}).Chunks() {
				evs = append(evs, domain.Event{ID: newID(), Kind: domain.EventProjectMatched, At: now,
					Matched: &domain.ProjectMatches{Project: w.project, Searches: chunk}})
			}
		}
		return r.enqueue(ctx, tx, evs)
	})
	return n, err
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
