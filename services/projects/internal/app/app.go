// Package app holds the use cases of the projects service: ingest a source,
// search, get a project, reference data, OCDS export.
package app

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"bidradar/services/projects/internal/domain"
)

// App is the projects application.
type App struct {
	repo      domain.ProjectRepository
	runs      domain.RunRepository
	log       *slog.Logger
	now       func() time.Time
	batchSize int
	workers   int
	x         Extras
	pace      pacer
	interests domain.Interests
}

// New wires the use cases; dependencies must not be nil.
func New(repo domain.ProjectRepository, runs domain.RunRepository, log *slog.Logger) (*App, error) {
	if repo == nil || runs == nil || log == nil {
		return nil, errors.New("app: nil dependency")
	}
	return &App{repo: repo, runs: runs, log: log, now: time.Now, batchSize: 1000, workers: 2}, nil
}

// Ingest reads src and upserts its observations in batches, recording the
// run (counts, errors, duration). Parsing runs ahead of the database in its
// own goroutine; batches are upserted by two workers at once (the
// repository's Upsert must be safe for concurrent use), each project's
// observations by one worker in file order. progress, when set, is called
// after each batch with the records seen so far.
func (a *App) Ingest(ctx context.Context, src domain.ObservationSource, target string, progress func(seen int)) (domain.IngestRun, error) {
	run := domain.IngestRun{Source: src.Name(), Target: target, StartedAt: a.now(), Status: "running"}
	id, err := a.runs.StartRun(ctx, run.Source, target, run.StartedAt)
	if err != nil {
		return run, err
	}
	run.ID = id
	// Batches are written by a.workers upserts on their own connections
	// (a PostgreSQL backend uses one core; index maintenance of new rows,
	// not parsing, is the bottleneck). A project id always goes to the same
	// worker, in file order: domain.Merge is order-dependent (the last
	// non-empty value wins) and one project is never in two concurrent
	// transactions, so its events keep their order.
	workers := max(a.workers, 1)
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	queues, parsed := a.readBatches(pctx, src, workers)
	upErr := a.upsertBatches(ctx, cancel, &run, queues, progress)
	p := <-parsed
	err = p.err
	if upErr != nil {
		err = upErr
	}
	return a.finishIngest(ctx, run, p.recordErrors, err)
}

// parsed is how reading a source ended: its error and the records it
// refused.
type parsed struct {
	err          error
	recordErrors []domain.RecordError
}

// readBatches reads src in its own goroutine into batches of a.batchSize,
// each project's observations to the queue of its worker (partition) in
// file order, and closes the queues at the end; the end is sent on the
// returned channel. Reading stops when ctx is cancelled.
func (a *App) readBatches(ctx context.Context, src domain.ObservationSource, workers int) ([]chan []domain.Project, <-chan parsed) {
	queues := make([]chan []domain.Project, workers)
	for i := range queues {
		queues[i] = make(chan []domain.Project, 2)
	}
	done := make(chan parsed, 1)
	go func() {
		defer func() {
			for _, q := range queues {
				close(q)
			}
		}()
		var recErrs []domain.RecordError
		batches := make([][]domain.Project, workers)
		send := func(i int) error {
			select {
			case queues[i] <- batches[i]:
				batches[i] = nil
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		err := src.Each(ctx, func(p domain.Project) error {
			i := partition(p.ID, workers)
			if batches[i] == nil {
				batches[i] = make([]domain.Project, 0, a.batchSize)
			}
			batches[i] = append(batches[i], p)
			if len(batches[i]) >= a.batchSize {
				return send(i)
			}
			return nil
		}, func(e domain.RecordError) { recErrs = append(recErrs, e) })
		for i := range batches {
			if err == nil && len(batches[i]) > 0 {
				err = send(i)
			}
		}
		done <- parsed{err: err, recordErrors: recErrs}
	}()
	return queues, done
}

// upsertBatches runs a worker a queue, each upserting its batches in order
// and adding their counts to run; the first failure cancels the reading
// (stop) and the batches after it are skipped. It returns that failure.
func (a *App) upsertBatches(ctx context.Context, stop func(), run *domain.IngestRun, queues []chan []domain.Project, progress func(seen int)) error {
	var (
		mu    sync.Mutex
		upErr error
		wg    sync.WaitGroup
	)
	for _, q := range queues {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range q {
				mu.Lock()
				failed := upErr != nil
				mu.Unlock()
				if failed {
					continue
				}
				st, err := a.repo.Upsert(ctx, run.ID, b, a.now())
				mu.Lock()
				if err != nil {
					if upErr == nil {
						upErr = err
					}
					stop()
				} else {
					run.Stats.Add(st)
					if progress != nil {
						progress(run.Stats.Seen)
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return upErr
}

// finishIngest records how an ingest run ended (its first 100 refused records, and err
// when it failed) and logs it.
func (a *App) finishIngest(ctx context.Context, run domain.IngestRun, recErrs []domain.RecordError, err error) (domain.IngestRun, error) {
	run.Errors = len(recErrs)
	for i, e := range recErrs {
		if i == 100 {
			run.ErrorLog = append(run.ErrorLog, "… "+strconv.Itoa(len(recErrs)-100)+" more")
			break
		}
		run.ErrorLog = append(run.ErrorLog, e.Error())
	}
	run.FinishedAt = a.now()
	run.Status = "succeeded"
	if err != nil {
		run.Status = "failed"
		run.Errors++
		run.ErrorLog = append(run.ErrorLog, err.Error())
	}
	if ferr := a.runs.FinishRun(context.WithoutCancel(ctx), run); ferr != nil {
		a.log.ErrorContext(ctx, "record ingest run", "run", run.ID, "err", ferr)
	}
	a.log.InfoContext(ctx, "ingest run finished", "run", run.ID, "source", run.Source, "target", run.Target,
		"seen", run.Stats.Seen, "created", run.Stats.Created, "updated", run.Stats.Updated,
		"announcements_added", run.Stats.AnnouncementsAdded, "errors", run.Errors,
		"duration", run.FinishedAt.Sub(run.StartedAt).String())
	if err != nil {
		return run, fmt.Errorf("ingest %s %s: %w", run.Source, run.Target, err)
	}
	return run, nil
}

// partition maps a project id to one of n upsert workers.
func partition(id string, n int) int {
	if n == 1 {
		return 0
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(id))
	return int(h.Sum32() % uint32(n))
}

// Runs lists recent ingestion runs.
func (a *App) Runs(ctx context.Context, limit int) ([]domain.IngestRun, error) {
	if limit <= 0 || limit > 200 {
		limit = 50
	}
	return a.runs.ListRuns(ctx, limit)
}

// Search runs a criteria search.
func (a *App) Search(ctx context.Context, c domain.Criteria, p domain.PageRequest) (domain.ResultPage, error) {
	return a.repo.Search(ctx, c, p)
}

// Get returns one project.
func (a *App) Get(ctx context.Context, id string) (domain.Project, error) {
	if !domain.ValidProjectID(id) {
		return domain.Project{}, domain.InvalidProjectID(id)
	}
	return a.repo.Get(ctx, id)
}

// GetMany returns the stored projects among ids (unknown and malformed ids left out).
func (a *App) GetMany(ctx context.Context, ids []string) ([]domain.Project, error) {
	valid := make([]string, 0, len(ids))
	for _, id := range ids {
		if domain.ValidProjectID(id) {
			valid = append(valid, id)
		}
	}
	if len(valid) == 0 {
		return nil, nil
	}
	return a.repo.GetMany(ctx, valid)
}

// Dropdowns are the option lists of the criteria form (docs/product.md#dropdown-data).
type Dropdowns struct {
	AnnouncementTypes, Methods, Provinces, Ministries, Departments, SubDepartments,
	Statuses, Strategies, Categories, BudgetYears []domain.Code
}

// Dropdowns returns the reference data; entries with an empty value or
// label are dropped.
func (a *App) Dropdowns(ctx context.Context) (Dropdowns, error) {
	f, err := a.repo.Facets(ctx)
	if err != nil {
		return Dropdowns{}, err
	}
	d := Dropdowns{
		AnnouncementTypes: domain.AnnouncementTypes,
		Methods:           domain.Methods,
		Ministries:        domain.Ministries,
		Statuses:          domain.Statuses,
		Strategies:        domain.Strategies,
		Categories:        domain.WorkTypes,
	}
	for _, p := range domain.Provinces {
		d.Provinces = append(d.Provinces, domain.Code{Code: p.Code, NameTh: p.NameTh})
	}
	for _, s := range f.Departments {
		d.Departments = append(d.Departments, domain.Code{Code: s, NameTh: s})
	}
	for _, s := range f.SubDepartments {
		d.SubDepartments = append(d.SubDepartments, domain.Code{Code: s, NameTh: s})
	}
	years := f.BudgetYears
	if len(years) == 0 {
		years = domain.BudgetYears(a.now())
	}
	for _, y := range years {
		s := strconv.Itoa(y)
		d.BudgetYears = append(d.BudgetYears, domain.Code{Code: s, NameTh: "ปีงบประมาณ " + s})
	}
	return d, nil
}
