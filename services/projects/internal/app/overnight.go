package app

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"bidradar/services/projects/internal/domain"
)

// overnightWriters is how many transactions write a run's digests at once.
const overnightWriters = 2

// OvernightLease is how long a claimed run is left to its replica before
// another may resume it; a running run renews it.
const OvernightLease = 5 * time.Minute

// Overnight runs the overnight searches (docs/product.md#overnight-searches): one digest per search
// and Bangkok date, naming the projects first seen in the run's window.
type Overnight struct {
	store domain.OvernightStore
	log   *slog.Logger
	now   func() time.Time
	page  int
	batch int // digests a transaction
}

// NewOvernight returns the use case; now may be nil (time.Now).
func NewOvernight(store domain.OvernightStore, log *slog.Logger, now func() time.Time) *Overnight {
	if now == nil {
		now = time.Now
	}
	return &Overnight{store: store, log: log, now: now, page: 1000, batch: 500}
}

// RunNow runs today's searches at once (operators, tests): a finished run
// of the day runs again, telling only the searches not yet told today.
// ErrOvernightBusy when another replica is running it.
func (o *Overnight) RunNow(ctx context.Context) (domain.OvernightStats, error) {
	st, ok, err := o.run(ctx, true)
	if err == nil && !ok {
		err = domain.ErrOvernightBusy
	}
	return st, err
}

// RunDue runs the day's run when its hour has come and no replica has run
// it (or one crashed running it); ran is false when there was nothing to do.
func (o *Overnight) RunDue(ctx context.Context) (ran bool, err error) {
	if _, due := domain.OvernightDay(o.now()); !due {
		return false, nil
	}
	_, ran, err = o.run(ctx, false)
	return ran, err
}

func (o *Overnight) run(ctx context.Context, rerun bool) (domain.OvernightStats, bool, error) {
	now := o.now()
	day, _ := domain.OvernightDay(now)
	st := domain.OvernightStats{Day: day}
	from, to, ok, err := o.store.ClaimOvernight(ctx, day, now, OvernightLease, rerun)
	if err != nil || !ok {
		return st, false, err
	}
	st.From, st.To = from, to
	renewed := now
	renew := func() error {
		if t := o.now(); t.Sub(renewed) > OvernightLease/3 {
			renewed = t
			return o.store.RenewOvernight(ctx, day, t.Add(OvernightLease))
		}
		return nil
	}
	saved, err := o.store.OvernightCriteria(ctx)
	if err != nil {
		return st, true, err
	}
	run := domain.NewOvernightRun(saved, day)
	st.Criteria = run.Len()
	if run.Len() > 0 {
		var afterAt time.Time
		var afterID string
		for {
			ps, err := o.store.FirstSeen(ctx, from, to, afterAt, afterID, o.page)
			if err != nil {
				return st, true, err
			}
			for i := range ps {
				run.Add(&ps[i])
			}
			if len(ps) < o.page {
				break
			}
			afterAt, afterID = ps[len(ps)-1].FirstSeen, ps[len(ps)-1].ID
			if err := renew(); err != nil {
				return st, true, err
			}
		}
	}
	st.ProjectsSeen = run.Seen()
	// Two transactions at once: while one batch's digests are encoded here,
	// PostgreSQL writes the other's (one core each; written one after the
	// other, a night of 100,000 searches left a core idle). A search has
	// one digest, so batches never touch each other's rows.
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(overnightWriters)
	for ds := run.Digests(); len(ds) > 0 && gctx.Err() == nil; {
		n := min(len(ds), o.batch)
		batch := ds[:n]
		ds = ds[n:]
		g.Go(func() error {
			wrote, err := o.store.RecordDigests(gctx, batch, o.now())
			mu.Lock()
			st.Digests += wrote
			mu.Unlock()
			return err
		})
		if err := renew(); err != nil {
			_ = g.Wait()
			return st, true, err
		}
	}
	if err := g.Wait(); err != nil {
		return st, true, err
	}
	st.FinishedAt = o.now()
	if err := o.store.FinishOvernight(context.WithoutCancel(ctx), st); err != nil {
		return st, true, err
	}
	o.log.InfoContext(ctx, "overnight run finished", "day", day.Format(time.DateOnly), "criteria", st.Criteria,
		"projects", st.ProjectsSeen, "digests", st.Digests, "took", st.FinishedAt.Sub(now).String())
	return st, true, nil
}
