package queue_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"bidradar/pkg/pgdb"
	"bidradar/pkg/queue"
	"bidradar/pkg/testutil/pgtest"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func open(t *testing.T) *pgxpool.Pool {
	t.Helper()
	ctx := context.Background()
	pool, err := pgdb.Open(ctx, pgtest.NewDatabase(t), "svc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	for range 2 { // idempotent
		if err := queue.Migrate(ctx, pool); err != nil {
			t.Fatal(err)
		}
	}
	return pool
}

// clock is a settable time.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

func worker(t *testing.T, pool *pgxpool.Pool, o queue.Options, kinds ...queue.Kind) *queue.Worker {
	t.Helper()
	if o.Log == nil {
		o.Log = quiet
	}
	w, err := queue.New(pool, o, kinds...)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func enqueue(t *testing.T, pool *pgxpool.Pool, jobs ...queue.Job) {
	t.Helper()
	if err := queue.Enqueue(context.Background(), pool, jobs...); err != nil {
		t.Fatal(err)
	}
}

type row struct {
	attempts     int
	next         time.Time
	done, failed bool
	payload      *string
	lastError    string
}

func jobRow(t *testing.T, pool *pgxpool.Pool, key string) row {
	t.Helper()
	var r row
	if err := pool.QueryRow(context.Background(), `SELECT attempts, next_attempt_at, done_at IS NOT NULL, failed_at IS NOT NULL,
		payload::text, coalesce(last_error, '') FROM queue_jobs WHERE key = $1`, key).
		Scan(&r.attempts, &r.next, &r.done, &r.failed, &r.payload, &r.lastError); err != nil {
		t.Fatal(err)
	}
	return r
}

func runDue(t *testing.T, w *queue.Worker) queue.Stats {
	t.Helper()
	st, err := w.RunDue(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// Four workers (replicas) over one table run each of 200 jobs exactly once.
func TestClaimExclusiveAcrossWorkers(t *testing.T) {
	pool := open(t)
	jobs := make([]queue.Job, 200)
	for i := range jobs {
		jobs[i] = queue.Job{Kind: "k", Key: fmt.Sprint(i), Destination: fmt.Sprint("d", i%3)}
	}
	enqueue(t, pool, jobs...)
	var mu sync.Mutex
	runs := map[string]int{}
	kind := queue.Kind{Name: "k", Handle: func(_ context.Context, a queue.Attempt) error {
		mu.Lock()
		runs[a.Key]++
		mu.Unlock()
		time.Sleep(time.Millisecond)
		return nil
	}}
	var wg sync.WaitGroup
	var done atomic.Int64
	for range 4 {
		w := worker(t, pool, queue.Options{Concurrency: 5, PerDestination: 2}, kind)
		wg.Go(func() {
			st, err := w.RunDue(context.Background())
			if err != nil {
				t.Error(err)
			}
			done.Add(int64(st.Done))
		})
	}
	wg.Wait()
	if len(runs) != 200 || done.Load() != 200 {
		t.Fatalf("%d jobs run, %d done; want 200", len(runs), done.Load())
	}
	for k, n := range runs {
		if n != 1 {
			t.Fatalf("job %s ran %d times", k, n)
		}
	}
	var pending int
	_ = pool.QueryRow(context.Background(), `SELECT count(*) FROM queue_jobs WHERE done_at IS NULL`).Scan(&pending)
	if pending != 0 {
		t.Fatalf("%d jobs not done", pending)
	}
}

// A worker that dies mid-attempt holds its job only until the lease ends;
// then another runs it, and the dead one's late outcome is not recorded.
func TestLeaseExpiresAfterCrashedWorker(t *testing.T) {
	pool := open(t)
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	c := &clock{t: t0}
	enqueue(t, pool, queue.Job{Kind: "k", Key: "a", Due: t0})
	hung := make(chan struct{})
	started := make(chan struct{})
	dead := worker(t, pool, queue.Options{Now: c.now, Lease: time.Minute}, queue.Kind{Name: "k", Timeout: 50 * time.Second,
		Handle: func(context.Context, queue.Attempt) error { close(started); <-hung; return errors.New("late failure") }})
	deadDone := make(chan queue.Stats)
	go func() {
		st, _ := dead.RunOnce(context.Background(), 1)
		deadDone <- st
	}()
	<-started
	var ran []int
	alive := worker(t, pool, queue.Options{Now: c.now, Lease: time.Minute}, queue.Kind{Name: "k",
		Handle: func(_ context.Context, a queue.Attempt) error { ran = append(ran, a.Attempts); return nil }})
	c.set(t0.Add(59 * time.Second))
	if st := runDue(t, alive); st.Claimed != 0 {
		t.Fatalf("claimed within the lease: %+v", st)
	}
	c.set(t0.Add(time.Minute))
	if st := runDue(t, alive); st.Done != 1 || len(ran) != 1 || ran[0] != 2 {
		t.Fatalf("after the lease: %+v, attempts seen %v", st, ran)
	}
	close(hung)
	<-deadDone
	if r := jobRow(t, pool, "a"); !r.done || r.failed || r.attempts != 2 || r.lastError != "" {
		t.Fatalf("the lapsed worker's outcome was recorded: %+v", r)
	}
}

// A failure waits the kind's back-off, measured on the injected clock.
func TestBackoffTiming(t *testing.T) {
	b := queue.Exponential(time.Minute, time.Hour)
	for attempts, want := range map[int]time.Duration{0: time.Minute, 1: time.Minute, 2: 2 * time.Minute, 7: time.Hour, 100: time.Hour, 1 << 20: time.Hour} {
		if got := b(attempts); got != want {
			t.Errorf("after %d failures: %s, want %s", attempts, got, want)
		}
	}

	pool := open(t)
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	c := &clock{t: t0}
	enqueue(t, pool, queue.Job{Kind: "k", Key: "a", Due: t0})
	fails := 3
	w := worker(t, pool, queue.Options{Now: c.now}, queue.Kind{Name: "k", Backoff: queue.Exponential(time.Minute, time.Hour),
		Handle: func(context.Context, queue.Attempt) error {
			if fails > 0 {
				fails--
				return errors.New("421 try later")
			}
			return nil
		}})
	at := t0
	for i, wait := range []time.Duration{time.Minute, 2 * time.Minute, 4 * time.Minute} {
		c.set(at)
		if st := runDue(t, w); st.Retried != 1 {
			t.Fatalf("attempt %d: %+v", i+1, st)
		}
		r := jobRow(t, pool, "a")
		if !r.next.Equal(at.Add(wait)) || r.attempts != i+1 || r.lastError != "421 try later" {
			t.Fatalf("attempt %d: %+v, want due at +%s", i+1, r, wait)
		}
		c.set(at.Add(wait - time.Second))
		if st := runDue(t, w); st.Claimed != 0 {
			t.Fatalf("retried %s early", time.Second)
		}
		at = at.Add(wait)
	}
	c.set(at)
	if st := runDue(t, w); st.Done != 1 {
		t.Fatalf("fourth attempt: %+v", st)
	}
}

// After MaxAttempts failures a job is given up, its payload (a code)
// erased and its error kept; a sent job's payload is erased too; a
// permanent error gives up at once; a job whose leases kept lapsing is
// given up without another attempt.
func TestGiveUpAndErasure(t *testing.T) {
	pool := open(t)
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	c := &clock{t: t0}
	code := map[string]string{"code": "123456"}
	enqueue(t, pool,
		queue.Job{Kind: "k", Key: "fails", Payload: code, Due: t0},
		queue.Job{Kind: "k", Key: "sent", Payload: code, Due: t0},
		queue.Job{Kind: "k", Key: "refused", Payload: code, Due: t0},
		queue.Job{Kind: "k", Key: "lapsed", Payload: code, Due: t0})
	var (
		mu  sync.Mutex
		got []string
	)
	w := worker(t, pool, queue.Options{Now: c.now}, queue.Kind{Name: "k", MaxAttempts: 3,
		Handle: func(_ context.Context, a queue.Attempt) error {
			var p map[string]string
			if err := a.Decode(&p); err != nil {
				return err
			}
			mu.Lock()
			got = append(got, a.Key+" "+p["code"])
			mu.Unlock()
			switch a.Key {
			case "fails":
				return errors.New("mailbox unavailable")
			case "refused":
				return queue.Permanent(errors.New("no address"))
			}
			return nil
		}})
	if _, err := pool.Exec(context.Background(), `UPDATE queue_jobs SET attempts = 3 WHERE key = 'lapsed'`); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		c.set(t0.Add(time.Duration(i) * time.Hour))
		runDue(t, w)
	}
	for key, want := range map[string]row{
		"fails":   {attempts: 3, failed: true, lastError: "mailbox unavailable"},
		"sent":    {attempts: 1, done: true},
		"refused": {attempts: 1, failed: true, lastError: "no address"},
		"lapsed":  {attempts: 4, failed: true, lastError: "given up: no attempt finished within its lease"},
	} {
		r := jobRow(t, pool, key)
		if r.payload != nil || r.attempts != want.attempts || r.done != want.done || r.failed != want.failed || r.lastError != want.lastError {
			t.Errorf("%s: %+v (payload %v), want %+v", key, r, r.payload, want)
		}
	}
	if len(got) != 5 { // fails ×3, sent, refused; never lapsed
		t.Fatalf("attempts %v", got)
	}
	if st := runDue(t, w); st.Claimed != 0 {
		t.Fatalf("finished jobs claimed again: %+v", st)
	}
}

// A destination whose receiver hangs gets PerDestination slots and no
// more: the jobs of other destinations run meanwhile.
func TestPerDestinationLimit(t *testing.T) {
	pool := open(t)
	var jobs []queue.Job
	for i := range 10 {
		jobs = append(jobs, queue.Job{Kind: "k", Key: fmt.Sprint("slow", i), Destination: "webhook:slow.example"})
	}
	for i := range 6 {
		jobs = append(jobs, queue.Job{Kind: "k", Key: fmt.Sprint("fast", i), Destination: "mail"})
	}
	enqueue(t, pool, jobs...)
	release := make(chan struct{})
	var slowNow, slowMost atomic.Int64
	fastDone := make(chan string, 6)
	w := worker(t, pool, queue.Options{Concurrency: 8, PerDestination: 2}, queue.Kind{Name: "k",
		Handle: func(ctx context.Context, a queue.Attempt) error {
			if a.Destination == "mail" {
				fastDone <- a.Key
				return nil
			}
			n := slowNow.Add(1)
			defer slowNow.Add(-1)
			for m := slowMost.Load(); n > m && !slowMost.CompareAndSwap(m, n); m = slowMost.Load() {
			}
			select {
			case <-release:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}})
	defer running(w)()
	deadline := time.After(5 * time.Second)
	for range 6 {
		select {
		case <-fastDone:
		case <-deadline:
			t.Fatal("the mail waited behind the hung receiver")
		}
	}
	if n := slowMost.Load(); n != 2 {
		t.Fatalf("%d attempts at once to the hung destination, want its 2 slots", n)
	}
	close(release)
	waitFor(t, func() bool {
		var n int
		_ = pool.QueryRow(context.Background(), `SELECT count(*) FROM queue_jobs WHERE done_at IS NOT NULL`).Scan(&n)
		return n == 16
	})
	if n := slowMost.Load(); n != 2 {
		t.Fatalf("%d attempts at once to the slow destination", n)
	}
}

// A fresh job wakes a running worker at once, without waiting for a poll.
func TestWakeUpOnInsert(t *testing.T) {
	pool := open(t)
	ran := make(chan time.Time, 1)
	w := worker(t, pool, queue.Options{Poll: time.Hour}, queue.Kind{Name: "k",
		Handle: func(context.Context, queue.Attempt) error { ran <- time.Now(); return nil }})
	defer running(w)()
	waitFor(t, func() bool { // the worker listens
		var n int
		_ = pool.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND query = 'LISTEN "svc_queue"'`).Scan(&n)
		return n == 1
	})
	start := time.Now()
	enqueue(t, pool, queue.Job{Kind: "k"})
	select {
	case at := <-ran:
		if d := at.Sub(start); d > 500*time.Millisecond {
			t.Fatalf("ran %s after the insert", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("not woken by the insert")
	}
}

// Put replaces a job, even a running one: the running attempt's outcome is
// not recorded and the job waits for its new due time. Enqueue leaves an
// existing key alone. A shut-down worker hands its running job back.
func TestPutReplacesAndShutdownHandsBack(t *testing.T) {
	pool := open(t)
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	c := &clock{t: t0}
	enqueue(t, pool, queue.Job{Kind: "k", Key: "plan", Due: t0})
	enqueue(t, pool, queue.Job{Kind: "k", Key: "plan", Due: t0.Add(time.Hour)}) // left alone
	w := worker(t, pool, queue.Options{Now: c.now}, queue.Kind{Name: "k", Handle: func(ctx context.Context, a queue.Attempt) error {
		// The handler moves its own job on (a plan rolled into the next one).
		return queue.Put(ctx, pool, queue.Job{Kind: "k", Key: "plan", Due: t0.Add(24 * time.Hour)})
	}})
	if st := runDue(t, w); st.Done != 1 {
		t.Fatalf("%+v", st)
	}
	if r := jobRow(t, pool, "plan"); r.done || r.attempts != 0 || !r.next.Equal(t0.Add(24*time.Hour)) {
		t.Fatalf("after a Put from its own attempt: %+v", r)
	}

	c.set(t0.Add(24 * time.Hour))
	started := make(chan struct{})
	hold := worker(t, pool, queue.Options{Now: c.now}, queue.Kind{Name: "k", Handle: func(ctx context.Context, a queue.Attempt) error {
		close(started)
		<-ctx.Done()
		return ctx.Err()
	}})
	stop := running(hold)
	<-started
	stop()
	if r := jobRow(t, pool, "plan"); r.done || r.failed || r.attempts != 0 || !r.next.Equal(t0.Add(24*time.Hour)) || r.lastError != "" {
		t.Fatalf("not handed back at shutdown: %+v", r)
	}
}

// running runs w until the returned stop, which waits for it.
func running(w *queue.Worker) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { w.Run(ctx); close(stopped) }()
	return func() { cancel(); <-stopped }
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 10 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Finished jobs of a kind with Retain are deleted once they are older than
// it; pending jobs, younger ones and kinds that keep theirs stay.
func TestPruneFinished(t *testing.T) {
	pool := open(t)
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	c := &clock{t: t0}
	enqueue(t, pool,
		queue.Job{Kind: "short", Key: "done", Due: t0},
		queue.Job{Kind: "short", Key: "refused", Due: t0},
		queue.Job{Kind: "short", Key: "later", Due: t0.Add(48 * time.Hour)},
		queue.Job{Kind: "kept", Key: "done-kept", Due: t0})
	handle := func(_ context.Context, a queue.Attempt) error {
		if a.Key == "refused" {
			return queue.Permanent(errors.New("no address"))
		}
		return nil
	}
	w := worker(t, pool, queue.Options{Now: c.now},
		queue.Kind{Name: "short", Handle: handle, Retain: 24 * time.Hour},
		queue.Kind{Name: "kept", Handle: handle})
	runDue(t, w)
	enqueue(t, pool, queue.Job{Kind: "short", Key: "young", Due: t0.Add(2 * time.Hour)})
	c.set(t0.Add(2 * time.Hour))
	runDue(t, w)

	c.set(t0.Add(25 * time.Hour))
	n, err := w.Prune(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Fatalf("pruned %d, want 2 (done, refused)", n)
	}
	rows, err := pool.Query(context.Background(), `SELECT key FROM queue_jobs ORDER BY key`)
	if err != nil {
		t.Fatal(err)
	}
	left, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"done-kept", "later", "young"}; !slices.Equal(left, want) {
		t.Fatalf("left %v, want %v", left, want)
	}
	if n, err := w.Prune(context.Background()); err != nil || n != 0 {
		t.Fatalf("second prune: %d, %v", n, err)
	}
}
