package queue

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Attempt is one run of a claimed job, as its handler gets it.
type Attempt struct {
	ID          int64
	Kind        string
	Key         string
	Destination string
	Payload     json.RawMessage // nil when the job has none
	Attempts    int             // attempts so far, this one included
	CreatedAt   time.Time
	LastError   string // the previous attempt's failure, if any
}

// Decode unmarshals the payload into v. A payload that does not decode
// never will: the error is permanent.
func (a Attempt) Decode(v any) error {
	if err := json.Unmarshal(a.Payload, v); err != nil {
		return Permanent(fmt.Errorf("queue: payload of %s %d: %w", a.Kind, a.ID, err))
	}
	return nil
}

// Kind is a kind of job and how it is run.
type Kind struct {
	Name string
	// Handle runs one attempt. nil records the job done; an error wrapped
	// with Permanent gives it up at once; any other error retries it after
	// Backoff, until MaxAttempts.
	Handle func(ctx context.Context, a Attempt) error
	// MaxAttempts: after that many failed attempts the job is given up
	// (its payload erased, its error kept). 0: never given up.
	MaxAttempts int
	// Backoff is the wait after the attempts-th failure (1, 2, …); nil is
	// Exponential(30 s, 1 h). At least a second.
	Backoff func(attempts int) time.Duration
	// Timeout bounds one attempt (its context); 0 is half the lease. It
	// must be shorter than the lease, so that no other worker claims a job
	// whose attempt may still succeed.
	Timeout time.Duration
	// Retain is how long a finished job (done or given up) stays in the
	// table before the worker deletes it; 0 keeps it for good. Only kinds
	// whose rows are no one's record may set it: a kept key stops a second
	// Enqueue of the same job, and some services read their jobs' state
	// (the webhook delivery log), so those keep theirs.
	Retain time.Duration
}

// Exponential is a back-off doubling from first up to most (and staying
// there, however many attempts a job never given up makes).
func Exponential(first, most time.Duration) func(int) time.Duration {
	return func(attempts int) time.Duration {
		d := first
		for i := 1; i < attempts && d < most; i++ {
			d *= 2
		}
		return min(d, most)
	}
}

type permanentError struct{ err error }

func (e permanentError) Error() string { return e.err.Error() }
func (e permanentError) Unwrap() error { return e.err }

// Permanent marks err as one no retry can mend: the job is given up at once.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return permanentError{err}
}

// IsPermanent tells whether err was marked with Permanent.
func IsPermanent(err error) bool { return errors.As(err, new(permanentError)) }

// Options tune a Worker. Zero values take the defaults.
type Options struct {
	// Concurrency is how many attempts run at once in this worker (16).
	Concurrency int
	// PerDestination is how many of them may talk to one destination (4).
	// A replica has its own slots: N replicas reach a destination at most
	// N × PerDestination at once.
	PerDestination int
	// Lease is how long a claimed job is left to its worker before another
	// may claim it again (2 min).
	Lease time.Duration
	// Poll is how often due retries and lapsed leases are looked for
	// without a wake-up (1 s).
	Poll time.Duration
	// PruneEvery is how often finished jobs past their kind's Retain are
	// deleted (1 h; the first pass a minute after Run starts).
	PruneEvery time.Duration
	// Now is the clock of claims and outcomes (time.Now); tests inject one.
	Now func() time.Time
	// Log receives failures (slog.Default()).
	Log *slog.Logger
}

// Stats counts what a run did.
type Stats struct {
	Claimed, Done, Retried, GivenUp int
}

func (s *Stats) add(o Stats) {
	s.Claimed += o.Claimed
	s.Done += o.Done
	s.Retried += o.Retried
	s.GivenUp += o.GivenUp
}

// Worker runs the jobs of its kinds from the queue_jobs table of a pool's
// schema. Any number of workers may run over one table, in one process or
// many: each job is claimed by one at a time.
type Worker struct {
	pool  *pgxpool.Pool
	opts  Options
	kinds map[string]Kind
	names []string
	log   *slog.Logger

	claimMu sync.Mutex // one claim at a time, so the slots it counts stay true
	mu      sync.Mutex
	running int
	byDest  map[string]int
	freed   chan struct{}
	wg      sync.WaitGroup
}

// New returns a worker for kinds over pool (its search_path is the
// service's schema).
func New(pool *pgxpool.Pool, opts Options, kinds ...Kind) (*Worker, error) {
	if opts.Concurrency <= 0 {
		opts.Concurrency = 16
	}
	if opts.PerDestination <= 0 {
		opts.PerDestination = 4
	}
	if opts.Lease <= 0 {
		opts.Lease = 2 * time.Minute
	}
	if opts.Poll <= 0 {
		opts.Poll = time.Second
	}
	if opts.PruneEvery <= 0 {
		opts.PruneEvery = time.Hour
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	w := &Worker{pool: pool, opts: opts, kinds: map[string]Kind{}, byDest: map[string]int{},
		freed: make(chan struct{}, 1), log: opts.Log.With("component", "queue")}
	if len(kinds) == 0 {
		return nil, errors.New("queue: a worker without kinds")
	}
	for _, k := range kinds {
		switch _, dup := w.kinds[k.Name]; {
		case k.Name == "" || k.Handle == nil:
			return nil, fmt.Errorf("queue: kind %q needs a name and a handler", k.Name)
		case dup:
			return nil, fmt.Errorf("queue: kind %q given twice", k.Name)
		case k.Timeout >= opts.Lease:
			return nil, fmt.Errorf("queue: kind %q: timeout %s not shorter than the lease %s", k.Name, k.Timeout, opts.Lease)
		}
		if k.Timeout <= 0 {
			k.Timeout = opts.Lease / 2
		}
		if k.Backoff == nil {
			k.Backoff = Exponential(30*time.Second, time.Hour)
		}
		w.kinds[k.Name] = k
		w.names = append(w.names, k.Name)
	}
	return w, nil
}

// Run runs jobs as they come due until ctx is done, then waits for the
// attempts running (their context is ctx: a cancelled attempt is handed
// back, due at once). It wakes on every insert into the table (LISTEN on
// a connection of its own), when a slot frees and every Poll.
func (w *Worker) Run(ctx context.Context) {
	defer w.wg.Wait()
	wake := make(chan struct{}, 1)
	if schema, err := currentSchema(ctx, w.pool); err != nil {
		if ctx.Err() == nil {
			w.log.WarnContext(ctx, "queue: no schema to listen on; polling only", "err", err)
		}
	} else {
		listening := make(chan struct{})
		go func() {
			defer close(listening)
			listen(ctx, w.pool, Channel(schema), wake, w.log)
		}()
		defer func() { <-listening }()
	}
	tick := time.NewTicker(w.opts.Poll)
	defer tick.Stop()
	prune := time.NewTimer(min(time.Minute, w.opts.PruneEvery))
	defer prune.Stop()
	for {
		for ctx.Err() == nil {
			n, err := w.start(ctx, w.opts.Concurrency, nil)
			if err != nil && ctx.Err() == nil {
				w.log.WarnContext(ctx, "queue: claim failed", "err", err)
			}
			if n == 0 || err != nil {
				break
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-wake:
		case <-w.freed:
		case <-tick.C:
		case <-prune.C:
			if _, err := w.Prune(ctx); err != nil && ctx.Err() == nil {
				w.log.WarnContext(ctx, "queue: prune failed", "err", err)
			}
			prune.Reset(w.opts.PruneEvery)
		}
	}
}

// pruneBatch bounds one DELETE, so a large backlog of finished jobs is
// removed in short transactions that never hold many row locks.
const pruneBatch = 1000

// Prune deletes the finished jobs (done or given up) of the worker's kinds
// that set Retain and finished more than Retain ago, and returns how many.
func (w *Worker) Prune(ctx context.Context) (int64, error) {
	var total int64
	for _, name := range w.names {
		k := w.kinds[name]
		if k.Retain <= 0 {
			continue
		}
		before := w.opts.Now().Add(-k.Retain)
		for {
			tag, err := w.pool.Exec(ctx, `DELETE FROM queue_jobs WHERE id IN (
				SELECT id FROM queue_jobs WHERE kind = $1 AND (done_at IS NOT NULL OR failed_at IS NOT NULL)
					AND coalesce(done_at, failed_at) < $2 LIMIT $3)`,
				name, before, pruneBatch)
			if err != nil {
				return total, fmt.Errorf("queue: prune %s: %w", name, err)
			}
			total += tag.RowsAffected()
			if tag.RowsAffected() < pruneBatch {
				break
			}
		}
	}
	return total, nil
}

// RunOnce claims up to limit due jobs (as the slots allow), runs them and
// waits for their outcomes.
func (w *Worker) RunOnce(ctx context.Context, limit int) (Stats, error) {
	var (
		st Stats
		mu sync.Mutex
		wg sync.WaitGroup
	)
	n, err := w.start(ctx, limit, func(o Stats) {
		mu.Lock()
		st.add(o)
		mu.Unlock()
		wg.Done()
	}, &wg)
	wg.Wait()
	st.Claimed = n
	return st, err
}

// RunDue runs every job due now, pass after pass, until a pass finds none.
func (w *Worker) RunDue(ctx context.Context) (Stats, error) {
	var total Stats
	for {
		st, err := w.RunOnce(ctx, w.opts.Concurrency)
		total.add(st)
		if err != nil || st.Claimed == 0 {
			return total, err
		}
	}
}

type claimed struct {
	Attempt
	lease time.Time // the claim: next_attempt_at as the claim wrote it
}

// The claim: due rows of the worker's kinds, at most the free slots of each
// destination (destinations already full are not even read), leased in one
// statement. A row another worker holds is skipped; one claimed and
// committed meanwhile no longer matches the re-checked conditions. The
// candidates are ranked once (MATERIALIZED), not once per row locked.
const claimSQL = `WITH cand AS MATERIALIZED (
	SELECT id, next_attempt_at FROM (
		SELECT d.id, d.next_attempt_at, coalesce(b.free, $6) AS free,
			row_number() OVER (PARTITION BY d.destination ORDER BY d.next_attempt_at, d.id) AS nth
		FROM (SELECT id, destination, next_attempt_at FROM queue_jobs
			WHERE done_at IS NULL AND failed_at IS NULL AND next_attempt_at <= $1
				AND kind = ANY($2) AND destination <> ALL($3)
			ORDER BY next_attempt_at, id LIMIT $9) d
		LEFT JOIN unnest($4::text[], $5::int[]) AS b (dest, free) ON b.dest = d.destination
	) ranked WHERE nth <= free
), pick AS (
	SELECT q.id FROM cand c JOIN queue_jobs q ON q.id = c.id
	WHERE q.done_at IS NULL AND q.failed_at IS NULL AND q.next_attempt_at <= $1
	ORDER BY c.next_attempt_at, c.id LIMIT $7
	FOR UPDATE OF q SKIP LOCKED
)
UPDATE queue_jobs q SET attempts = q.attempts + 1, next_attempt_at = $8
FROM pick WHERE q.id = pick.id
RETURNING q.id, q.kind, coalesce(q.key, ''), q.destination, q.payload, q.attempts, q.created_at,
	coalesce(q.last_error, ''), q.next_attempt_at`

// start claims up to limit jobs within the free slots and starts each in
// its own goroutine; done (when set) gets each one's outcome, after wg.Add.
func (w *Worker) start(ctx context.Context, limit int, done func(Stats), wg ...*sync.WaitGroup) (int, error) {
	w.claimMu.Lock()
	defer w.claimMu.Unlock()
	w.mu.Lock()
	limit = min(limit, w.opts.Concurrency-w.running)
	full, dests, free := []string{}, []string{}, []int32{}
	for d, n := range w.byDest {
		if f := w.opts.PerDestination - n; f <= 0 {
			full = append(full, d)
		} else {
			dests, free = append(dests, d), append(free, int32(f))
		}
	}
	w.mu.Unlock()
	if limit <= 0 {
		return 0, nil
	}
	now := w.opts.Now()
	rows, err := w.pool.Query(ctx, claimSQL, now, w.names, full, dests, free, w.opts.PerDestination,
		limit, now.Add(w.opts.Lease), max(4*limit, 64))
	if err != nil {
		return 0, fmt.Errorf("queue: claim: %w", err)
	}
	batch, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (claimed, error) {
		var c claimed
		var payload []byte
		err := r.Scan(&c.ID, &c.Kind, &c.Key, &c.Destination, &payload, &c.Attempts, &c.CreatedAt, &c.LastError, &c.lease)
		if payload != nil {
			c.Payload = payload
		}
		return c, err
	})
	if err != nil {
		return 0, fmt.Errorf("queue: claim: %w", err)
	}
	slices.SortFunc(batch, func(a, b claimed) int { return cmp.Compare(a.ID, b.ID) })
	w.mu.Lock()
	w.running += len(batch)
	for _, c := range batch {
		w.byDest[c.Destination]++
	}
	w.mu.Unlock()
	for _, c := range batch {
		for _, g := range wg {
			g.Add(1)
		}
		w.wg.Go(func() {
			o := w.handle(ctx, c)
			w.mu.Lock()
			w.running--
			if w.byDest[c.Destination]--; w.byDest[c.Destination] == 0 {
				delete(w.byDest, c.Destination)
			}
			w.mu.Unlock()
			select {
			case w.freed <- struct{}{}:
			default:
			}
			if done != nil {
				done(o)
			}
		})
	}
	return len(batch), nil
}

// handle runs one claimed attempt and records its outcome.
func (w *Worker) handle(ctx context.Context, c claimed) Stats {
	k := w.kinds[c.Kind]
	args := []any{"kind", c.Kind, "job", c.ID, "key", c.Key, "attempts", c.Attempts}
	if k.MaxAttempts > 0 && c.Attempts > k.MaxAttempts {
		// Its earlier leases ran out: the workers holding them died.
		w.log.WarnContext(ctx, "queue: job given up after lapsed leases", args...)
		return w.record(ctx, c, Stats{GivenUp: 1}, `failed_at = $4, last_error = $5, payload = NULL`,
			w.opts.Now(), "given up: no attempt finished within its lease")
	}
	actx, cancel := context.WithTimeout(ctx, k.Timeout)
	err := call(actx, k.Handle, c.Attempt)
	cancel()
	now := w.opts.Now()
	switch {
	case err == nil:
		return w.record(ctx, c, Stats{Done: 1}, `done_at = $4, last_error = NULL, payload = NULL`, now)
	case ctx.Err() != nil:
		// Shut down mid-attempt: handed back, due at once, the attempt not counted.
		return w.record(ctx, c, Stats{}, `next_attempt_at = $4, attempts = attempts - 1`, now)
	case IsPermanent(err) || (k.MaxAttempts > 0 && c.Attempts >= k.MaxAttempts):
		w.log.WarnContext(ctx, "queue: job given up", append(args, "err", err)...)
		return w.record(ctx, c, Stats{GivenUp: 1}, `failed_at = $4, last_error = $5, payload = NULL`, now, failure(err))
	}
	retry := now.Add(max(k.Backoff(c.Attempts), time.Second))
	w.log.WarnContext(ctx, "queue: attempt failed; retrying", append(args, "retry_at", retry, "err", err)...)
	return w.record(ctx, c, Stats{Retried: 1}, `next_attempt_at = $4, last_error = $5`, retry, failure(err))
}

// record writes an outcome, unless the claim was lost (the lease ran out
// and another worker took the row, or Put or Cancel replaced the job).
func (w *Worker) record(ctx context.Context, c claimed, o Stats, set string, args ...any) Stats {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	tag, err := w.pool.Exec(rctx, `UPDATE queue_jobs SET `+set+`
		WHERE id = $1 AND attempts = $2 AND next_attempt_at = $3 AND done_at IS NULL AND failed_at IS NULL`,
		append([]any{c.ID, c.Attempts, c.lease}, args...)...)
	switch {
	case err != nil:
		w.log.WarnContext(ctx, "queue: outcome not recorded; the job runs again once its lease ends", "kind", c.Kind, "job", c.ID, "err", err)
	case tag.RowsAffected() == 0:
		w.log.DebugContext(ctx, "queue: claim lost before the outcome", "kind", c.Kind, "job", c.ID)
	}
	return o
}

// call runs h, a panic turned into its error.
func call(ctx context.Context, h func(context.Context, Attempt) error, a Attempt) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return h(ctx, a)
}

// failure is the error a job keeps: at most 500 bytes of valid UTF-8.
func failure(err error) string {
	s := err.Error()
	if len(s) <= 500 {
		return s
	}
	s = s[:500]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return strings.TrimSpace(s)
}

// listen holds a connection of its own LISTENing on channel and signals
// wake on every notification, reconnecting after failures until ctx ends.
func listen(ctx context.Context, pool *pgxpool.Pool, channel string, wake chan<- struct{}, log *slog.Logger) {
	signal := func() {
		select {
		case wake <- struct{}{}:
		default:
		}
	}
	for ctx.Err() == nil {
		err := func() error {
			conn, err := pgx.ConnectConfig(ctx, pool.Config().ConnConfig.Copy())
			if err != nil {
				return err
			}
			defer conn.Close(context.WithoutCancel(ctx))
			if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{channel}.Sanitize()); err != nil {
				return err
			}
			signal() // jobs written while nobody listened
			for {
				if _, err := conn.WaitForNotification(ctx); err != nil {
					return err
				}
				signal()
			}
		}()
		if ctx.Err() != nil {
			return
		}
		log.WarnContext(ctx, "queue: listener failed; retrying", "err", err)
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}
