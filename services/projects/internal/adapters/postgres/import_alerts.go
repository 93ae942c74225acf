package postgres

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"bidradar/services/projects/internal/domain"
)

// The instant alerts of an import are told once a user and import: each
// batch of a run holds its projects' new matches in import_matches
// (deferMatches), and the run's end (FinishRun) groups them by the
// searches' owners (flushImport): a user matched by two projects or more
// gets one import.matched event naming them all, a user matched by one
// project gets that project's project.matched event, as for a single new
// project (docs/product.md#instant-alerts).

// deferMatches holds the project.matched events of a batch of run runID
// (from recordMatches) in import_matches instead of the outbox.
func deferMatches(ctx context.Context, tx pgx.Tx, runID int64, evs []domain.Event) error {
	if len(evs) == 0 {
		return nil
	}
	at := map[string]int{}
	var pids []string
	var keys [][]byte
	var asOf []int64
	for _, e := range evs {
		m := e.Matched
		i, ok := at[m.Project.ID]
		if !ok {
			i = len(pids)
			at[m.Project.ID] = i
			pids, keys, asOf = append(pids, m.Project.ID), append(keys, nil), append(asOf, m.AsOf)
		}
		for _, k := range m.Keys {
			keys[i] = append(keys[i], k[:]...)
		}
	}
	if _, err := tx.Exec(ctx, `INSERT INTO import_matches (run_id, project_id, keys, as_of)
		SELECT $1, u.p, u.k, u.v FROM unnest($2::text[], $3::bytea[], $4::bigint[]) AS u (p, k, v) ORDER BY 2
		ON CONFLICT (run_id, project_id) DO UPDATE SET keys = import_matches.keys || EXCLUDED.keys,
			as_of = greatest(import_matches.as_of, EXCLUDED.as_of)`, runID, pids, keys, asOf); err != nil {
		return fmt.Errorf("defer matches of run %d: %w", runID, err)
	}
	return nil
}

// heldMatch is a project's held matches of a run.
type heldMatch struct {
	projectID string
	keys      []domain.SearchKey
	asOf      int64
}

// flushImport turns the held matches of run runID into their events, in
// one transaction that deletes them: nothing is told twice, and nothing
// lost if the process stops before (a later run's start flushes them:
// flushLeftovers).
func (r *Repo) flushImport(ctx context.Context, runID int64, now time.Time) error {
	return pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT project_id, keys, as_of FROM import_matches WHERE run_id = $1
			ORDER BY project_id FOR UPDATE`, runID)
		if err != nil {
			return err
		}
		var held []heldMatch
		var pid string
		var raw []byte
		var asOf int64
		if _, err := pgx.ForEachRow(rows, []any{&pid, &raw, &asOf}, func() error {
			h := heldMatch{projectID: pid, asOf: asOf}
			for k := range toldKeys(raw) {
				h.keys = append(h.keys, k)
			}
			held = append(held, h)
			return nil
		}); err != nil {
			return fmt.Errorf("read held matches: %w", err)
		}
		if len(held) == 0 {
			return nil
		}
		evs, err := r.importEvents(ctx, tx, runID, held, now)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM import_matches WHERE run_id = $1`, runID); err != nil {
			return err
		}
		return r.enqueue(ctx, tx, evs)
	})
}

// importEvents groups held matches by the searches' owners (a search
// deleted since is left out) into their events.
func (r *Repo) importEvents(ctx context.Context, tx pgx.Tx, runID int64, held []heldMatch, now time.Time) ([]domain.Event, error) {
	// The distinct searches (an import's 3.2 M matches name ~100,000), and
	// their owners as indexes into names: a match costs one lookup of its
	// key, not a copy and lookups by a user's id.
	seen := map[domain.SearchKey]int32{}
	var distinct []domain.SearchKey
	for _, h := range held {
		for _, k := range h.keys {
			if _, ok := seen[k]; !ok {
				seen[k] = -1
				distinct = append(distinct, k)
			}
		}
	}
	owner, err := searchOwners(ctx, tx, distinct)
	if err != nil {
		return nil, err
	}
	var names []string
	nameIx := map[string]int32{}
	for k, u := range owner {
		ix, ok := nameIx[u]
		if !ok {
			ix = int32(len(names))
			nameIx[u], names = ix, append(names, u)
		}
		seen[k] = ix
	}
	// Each user's projects, in held order, and which held rows they are;
	// the users in the order first met.
	var order []int32
	rowsOf := make([][]int, len(names))
	for i, h := range held {
		for _, k := range h.keys {
			u := seen[k]
			if u < 0 {
				continue // deleted since
			}
			ps := rowsOf[u]
			if len(ps) > 0 && ps[len(ps)-1] == i {
				continue
			}
			if ps == nil {
				order = append(order, u)
			}
			rowsOf[u] = append(ps, i)
		}
	}
	users := make([]string, len(order))
	byUser := make(map[string][]int, len(order))
	for j, u := range order {
		users[j] = names[u]
		byUser[names[u]] = rowsOf[u]
	}
	// Only the projects the events name with their details: each user's
	// first ImportNames, and those of the one-project users.
	need := map[string]bool{}
	for _, u := range users {
		ps := byUser[u]
		for _, i := range ps[:min(len(ps), domain.ImportNames)] {
			need[held[i].projectID] = true
		}
	}
	projects, err := r.GetMany(ctx, slices.Sorted(maps.Keys(need)))
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*domain.Project, len(projects))
	for i := range projects {
		byID[projects[i].ID] = &projects[i]
	}
	var evs []domain.Event
	single := map[int][]domain.SearchKey{} // held row → the keys of its one-project users
	var grouped []domain.ImportUser
	for _, u := range users {
		ps := byUser[u]
		if len(ps) == 1 {
			for _, k := range held[ps[0]].keys {
				if owner[k] == u {
					single[ps[0]] = append(single[ps[0]], k)
				}
			}
			continue
		}
		g := domain.ImportUser{UserID: u, ProjectIDs: make([]string, len(ps))}
		for j, i := range ps {
			g.ProjectIDs[j] = held[i].projectID
		}
		grouped = append(grouped, g)
	}
	// Many users an event (domain.ImportChunks), each named project once.
	for _, chunk := range domain.ImportChunks(grouped) {
		m := &domain.ImportMatches{ImportID: runID, Users: chunk}
		named := map[string]bool{}
		for _, g := range chunk {
			for _, id := range g.ProjectIDs[:min(len(g.ProjectIDs), domain.ImportNames)] {
				if p := byID[id]; p != nil && !named[id] {
					named[id] = true
					m.Projects = append(m.Projects, *p)
				}
			}
		}
		evs = append(evs, domain.Event{ID: newID(), Kind: domain.EventImportMatched, At: now, Import: m})
	}
	for _, i := range slices.Sorted(maps.Keys(single)) {
		p := byID[held[i].projectID]
		if p == nil {
			continue
		}
		for _, chunk := range (domain.ProjectMatches{Project: p, Keys: single[i]}).Chunks() {
			evs = append(evs, domain.Event{ID: newID(), Kind: domain.EventProjectMatched, At: now,
				Matched: &domain.ProjectMatches{Project: p, Keys: chunk, AsOf: held[i].asOf}})
		}
	}
	return evs, nil
}

// searchOwners returns the owner of each of keys that still exists.
func searchOwners(ctx context.Context, tx pgx.Tx, keys []domain.SearchKey) (map[domain.SearchKey]string, error) {
	distinct := make([]domain.SearchKey, 0, len(keys))
	seen := make(map[domain.SearchKey]bool, len(keys))
	for _, k := range keys {
		if !seen[k] {
			seen[k] = true
			distinct = append(distinct, k)
		}
	}
	rows, err := tx.Query(ctx, `SELECT id, user_id FROM search_criteria WHERE id = ANY($1::uuid[])`, distinct)
	if err != nil {
		return nil, fmt.Errorf("search owners: %w", err)
	}
	out := make(map[domain.SearchKey]string, len(distinct))
	var k domain.SearchKey
	var u string
	_, err = pgx.ForEachRow(rows, []any{&k, &u}, func() error {
		out[k] = u
		return nil
	})
	return out, err
}

// flushLeftovers flushes the held matches of runs that will not finish
// themselves: finished (their flush failed) or started more than an hour
// before now (their process stopped).
func (r *Repo) flushLeftovers(ctx context.Context, now time.Time) error {
	rows, err := r.pool.Query(ctx, `SELECT DISTINCT m.run_id FROM import_matches m JOIN ingest_runs r ON r.id = m.run_id
		WHERE r.status <> 'running' OR r.started_at < $1`, now.Add(-time.Hour))
	if err != nil {
		return err
	}
	runs, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return err
	}
	for _, id := range runs {
		if err := r.flushImport(ctx, id, now); err != nil {
			return fmt.Errorf("flush run %d: %w", id, err)
		}
	}
	return nil
}
