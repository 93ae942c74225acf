package app

import (
	"context"
	"log/slog"
	"time"

	"bidradar/services/projects/internal/domain"
)

// Deadlines reminds the followers of a project, the day before (Bangkok),
// of its bid submission or price-hearing date: the events go to the
// notification service, which knows the followers.
type Deadlines struct {
	store domain.DeadlineStore
	log   *slog.Logger
	now   func() time.Time
}

// NewDeadlines returns the job; now may be nil (time.Now).
func NewDeadlines(store domain.DeadlineStore, log *slog.Logger, now func() time.Time) *Deadlines {
	if now == nil {
		now = time.Now
	}
	return &Deadlines{store: store, log: log, now: now}
}

// RemindDue writes the reminders of tomorrow's deadlines once the hour of
// reminders has come today (a project ingested later in the day is
// reminded on the next run); it returns how many it wrote.
func (d *Deadlines) RemindDue(ctx context.Context) (int, error) {
	now := d.now()
	day, due := domain.DeadlinesDue(now)
	if !due {
		return 0, nil
	}
	ds, err := d.store.RemindDeadlines(ctx, day, now)
	if len(ds) > 0 {
		d.log.InfoContext(ctx, "deadline reminders", "day", day.Format(time.DateOnly), "count", len(ds))
	}
	return len(ds), err
}
