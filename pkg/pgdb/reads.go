package pgdb

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Reads routes a service's read-only queries to a streaming replica
// (DATABASE_READ_URL) and everything else to the primary
// (docs/architecture.md#beyond-one-machine). A read goes to the replica
// only when all of these hold:
//
//   - the request allows it (a Session from a user's call, not a
//     service's: an event consumer reading what it was told about must see
//     it, so internal calls read on the primary);
//   - the replica has replayed the request's last own write (the Session's
//     LSN, carried in the LSNCookie): read-your-writes;
//   - the replica answers and is no more than MaxLag behind the primary,
//     checked every Interval: down or lagging, reads fall back to the
//     primary at the next check and return when it has caught up.
//
// A nil *Reads, or one without a replica, reads on the primary.
type Reads struct {
	primary, replica *pgxpool.Pool
	opts             ReadsOptions
	healthy          atomic.Bool
	replayed         atomic.Uint64
	replicaReads     atomic.Int64
	mu               sync.Mutex
	samples          []lsnSample // the primary's WAL position over the last MaxLag
	stop             context.CancelFunc
	done             chan struct{}
}

// ReadsOptions tune Reads; zero values take the defaults.
type ReadsOptions struct {
	// MaxLag: a replica further behind reads nothing (default 3 s).
	MaxLag time.Duration
	// Interval between health checks (default 500 ms).
	Interval time.Duration
	Log      *slog.Logger
}

type lsnSample struct {
	at  time.Time
	lsn uint64
}

// OpenReads connects a pool to the replica at replicaURL (the primary's
// search_path, no schema created: a standby is read-only) and
// starts checking it. An unreachable replica is no error: reads stay on
// the primary until it answers. An empty replicaURL gives a Reads that
// reads on the primary.
func OpenReads(ctx context.Context, primary *pgxpool.Pool, replicaURL string, opts ReadsOptions) (*Reads, error) {
	if replicaURL == "" {
		return NewPrimaryReads(primary), nil
	}
	cfg, err := pgxpool.ParseConfig(replicaURL)
	if err != nil {
		return nil, fmt.Errorf("pgdb: parse DATABASE_READ_URL: %w", err)
	}
	if sp := primary.Config().ConnConfig.RuntimeParams["search_path"]; sp != "" {
		cfg.ConnConfig.RuntimeParams["search_path"] = sp
	}
	cfg.ConnConfig.Tracer = NewTracer()
	if cfg.ConnConfig.ConnectTimeout == 0 || cfg.ConnConfig.ConnectTimeout > 2*time.Second {
		cfg.ConnConfig.ConnectTimeout = 2 * time.Second
	}
	replica, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pgdb: replica pool: %w", err)
	}
	return NewReads(primary, replica, opts), nil
}

// NewPrimaryReads reads everything on primary (no replica configured).
func NewPrimaryReads(primary *pgxpool.Pool) *Reads { return &Reads{primary: primary} }

// HasReplica reports whether a replica is configured.
func (r *Reads) HasReplica() bool { return r != nil && r.replica != nil }

// NewReads routes reads between primary and replica (tests); Close closes
// the replica's pool.
func NewReads(primary, replica *pgxpool.Pool, opts ReadsOptions) *Reads {
	if opts.MaxLag <= 0 {
		opts.MaxLag = 3 * time.Second
	}
	if opts.Interval <= 0 {
		opts.Interval = 500 * time.Millisecond
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	r := &Reads{primary: primary, replica: replica, opts: opts, done: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	r.stop = cancel
	r.check(ctx)
	go r.watch(ctx)
	return r
}

// Close stops the checks and closes the replica's pool (not the primary's).
func (r *Reads) Close() {
	if r == nil || r.replica == nil {
		return
	}
	r.stop()
	<-r.done
	r.replica.Close()
}

// Primary is the primary's pool.
func (r *Reads) Primary() *pgxpool.Pool { return r.primary }

// Healthy reports whether the replica serves reads now.
func (r *Reads) Healthy() bool { return r != nil && r.replica != nil && r.healthy.Load() }

// ReplicaReads counts the reads served by the replica (tests, metrics).
func (r *Reads) ReplicaReads() int64 { return r.replicaReads.Load() }

// Pool is the pool a read-only query of ctx runs on.
func (r *Reads) Pool(ctx context.Context) *pgxpool.Pool {
	if !r.Healthy() {
		return r.primary
	}
	s := SessionFrom(ctx)
	// A call that has written reads the rest of its work on the primary: the
	// replica may not have replayed that write yet (an import that then
	// reads the projects it stored to tell their alerts).
	if s == nil || !s.replicaOK || s.wrote.Load() || s.minLSN > r.replayed.Load() {
		return r.primary
	}
	r.replicaReads.Add(1)
	return r.replica
}

// Read runs the read-only fn on Pool(ctx); when the replica fails it on
// the connection (killed, restarting), the replica is taken out until the
// next check passes and fn runs again on the primary.
func (r *Reads) Read(ctx context.Context, fn func(*pgxpool.Pool) error) error {
	p := r.Pool(ctx)
	err := fn(p)
	if err == nil || p == r.primary || !connectionFailure(err) || ctx.Err() != nil {
		return err
	}
	r.healthy.Store(false)
	r.opts.Log.WarnContext(ctx, "read replica failed: reads on the primary until it answers", "err", err)
	return fn(r.primary)
}

// connectionFailure: an error not from the server's SQL (a PgError other
// than a shutdown or recovery conflict), i.e. the replica itself.
func connectionFailure(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		// 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now,
		// 40001 a recovery conflict cancelled the read.
		return pgErr.Code == "57P01" || pgErr.Code == "57P02" || pgErr.Code == "57P03" || pgErr.Code == "40001"
	}
	return !errors.Is(err, pgx.ErrNoRows)
}

// CurrentLSN is the primary's WAL insert position now, as PostgreSQL
// prints it ("16/B374D848"): after a commit, past its record (the write
// position, pg_current_wal_lsn, may still be behind an asynchronous commit).
func (r *Reads) CurrentLSN(ctx context.Context) (string, error) {
	var lsn string
	err := r.primary.QueryRow(ctx, "SELECT pg_current_wal_insert_lsn()::text").Scan(&lsn)
	return lsn, err
}

func (r *Reads) watch(ctx context.Context) {
	defer close(r.done)
	t := time.NewTicker(r.opts.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			r.check(ctx)
		}
	}
}

// check samples the primary's position and the replica's replay: the
// replica is healthy when it answers, is in recovery, and has replayed
// what the primary had written MaxLag ago.
func (r *Reads) check(ctx context.Context) {
	cctx, cancel := context.WithTimeout(ctx, r.opts.Interval+time.Second)
	defer cancel()
	now := time.Now()
	var primaryLSN string
	if err := r.primary.QueryRow(cctx, "SELECT pg_current_wal_insert_lsn()::text").Scan(&primaryLSN); err == nil {
		if v, err := ParseLSN(primaryLSN); err == nil {
			r.mu.Lock()
			r.samples = append(r.samples, lsnSample{now, v})
			r.mu.Unlock()
		}
	}
	var replayed *string
	var inRecovery bool
	err := r.replica.QueryRow(cctx, "SELECT pg_last_wal_replay_lsn()::text, pg_is_in_recovery()").Scan(&replayed, &inRecovery)
	if err != nil || replayed == nil || !inRecovery {
		r.setHealthy(ctx, false, "replica unreachable or not a standby", err)
		return
	}
	rv, err := ParseLSN(*replayed)
	if err != nil {
		r.setHealthy(ctx, false, "replica's replay position unreadable", err)
		return
	}
	r.replayed.Store(rv)
	// The primary's position MaxLag ago: the newest sample at least that old.
	r.mu.Lock()
	var due uint64
	keep := 0
	for i, s := range r.samples {
		if now.Sub(s.at) >= r.opts.MaxLag {
			due, keep = s.lsn, i
		}
	}
	r.samples = r.samples[keep:]
	r.mu.Unlock()
	if rv < due {
		r.setHealthy(ctx, false, "replica lags more than "+r.opts.MaxLag.String(), nil)
		return
	}
	r.setHealthy(ctx, true, "", nil)
}

func (r *Reads) setHealthy(ctx context.Context, ok bool, why string, err error) {
	if r.healthy.Swap(ok) == ok {
		return
	}
	if ok {
		r.opts.Log.InfoContext(ctx, "read replica serves reads again")
	} else {
		r.opts.Log.WarnContext(ctx, "read replica out: reads on the primary", "why", why, "err", err)
	}
}

// ParseLSN reads a WAL position as PostgreSQL prints it ("16/B374D848").
func ParseLSN(s string) (uint64, error) {
	hi, lo, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return 0, fmt.Errorf("pgdb: LSN %q: want X/Y", s)
	}
	h, err := strconv.ParseUint(hi, 16, 32)
	if err != nil {
		return 0, fmt.Errorf("pgdb: LSN %q: %w", s, err)
	}
	l, err := strconv.ParseUint(lo, 16, 32)
	if err != nil {
		return 0, fmt.Errorf("pgdb: LSN %q: %w", s, err)
	}
	return h<<32 | l, nil
}

// LSNCookie carries a user's last write position to their next reads, on
// whichever process serves them (a short-lived cookie: the replica replays
// within milliseconds when healthy).
const LSNCookie = "br_lsn"

// LSNCookieMaxAge is how long the cookie lives.
const LSNCookieMaxAge = 30 * time.Second

// Session is what a request tells the queries it runs: whether its reads
// may go to the replica, the least WAL position they must see, and (set by
// the Tracer) whether it wrote.
type Session struct {
	replicaOK bool
	minLSN    uint64
	wrote     atomic.Bool
}

// NewSession starts a request's session; minLSN is its LSNCookie ("" none).
func NewSession(replicaOK bool, minLSN string) *Session {
	s := &Session{replicaOK: replicaOK}
	if minLSN != "" {
		v, err := ParseLSN(minLSN)
		if err != nil {
			s.replicaOK = false // unreadable: the safe side
		}
		s.minLSN = v
	}
	return s
}

// MayReadReplica reports whether the request's reads may go to the replica.
func (s *Session) MayReadReplica() bool { return s != nil && s.replicaOK }

// Wrote reports whether a statement of the request changed data.
func (s *Session) Wrote() bool { return s != nil && s.wrote.Load() }

type sessionKey struct{}

// WithSession puts s in ctx.
func WithSession(ctx context.Context, s *Session) context.Context {
	return context.WithValue(ctx, sessionKey{}, s)
}

// SessionFrom is the request's session, or nil.
func SessionFrom(ctx context.Context) *Session {
	s, _ := ctx.Value(sessionKey{}).(*Session)
	return s
}

// markWrite records a write of the session of ctx from a statement's tag.
func markWrite(ctx context.Context, tag pgconn.CommandTag, err error) {
	s := SessionFrom(ctx)
	if s == nil || err != nil {
		return
	}
	verb, _, _ := strings.Cut(tag.String(), " ")
	switch strings.ToUpper(verb) {
	case "", "SELECT", "SHOW", "SET", "RESET", "BEGIN", "START", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE",
		"EXPLAIN", "FETCH", "DECLARE", "CLOSE", "DISCARD", "LISTEN", "UNLISTEN", "PREPARE", "DEALLOCATE":
		return
	}
	s.wrote.Store(true)
}
