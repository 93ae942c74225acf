package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"bidradar/services/projects/internal/domain"
)

// RemindDeadlines writes, in one transaction, a reminder row and its event
// for every project deadline on day not yet reminded (migration 00010):
// replicas running it at once, or again after a restart, write each
// reminder once. It returns the reminders written.
func (r *Repo) RemindDeadlines(ctx context.Context, day, now time.Time) ([]domain.Deadline, error) {
	var out []domain.Deadline
	err := pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `WITH due AS (
				SELECT id, name, 'submission' AS kind FROM projects WHERE submission_due = $1
				UNION ALL
				SELECT id, name, 'hearing' FROM projects WHERE hearing_due = $1
			), fresh AS (
				INSERT INTO deadline_reminders (project_id, kind, day, created_at)
				SELECT id, kind, $1, $2 FROM due ON CONFLICT DO NOTHING
				RETURNING project_id, kind
			)
			SELECT f.project_id, d.name, f.kind FROM fresh f JOIN due d ON d.id = f.project_id AND d.kind = f.kind
			ORDER BY f.project_id, f.kind`, day, now)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (domain.Deadline, error) {
			d := domain.Deadline{Day: day}
			err := row.Scan(&d.ProjectID, &d.ProjectName, &d.Kind)
			return d, err
		})
		if err != nil {
			return err
		}
		evs := make([]domain.Event, len(out))
		for i := range out {
			evs[i] = domain.Event{ID: domain.DeadlineEventID(out[i]), Kind: domain.EventDeadlineApproaching, At: now, Deadline: &out[i]}
		}
		return r.enqueue(ctx, tx, evs)
	})
	if err != nil {
		return nil, fmt.Errorf("remind deadlines of %s: %w", day.Format(time.DateOnly), err)
	}
	return out, nil
}
