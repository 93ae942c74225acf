package outbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"bidradar/pkg/events"
)

// RelayOptions tunes a Relay. Zero values take the defaults.
type RelayOptions struct {
	// Batch is the number of rows locked and published per transaction
	// (default 100).
	Batch int
	// PollInterval is how often the relay looks for rows without a
	// notification, a safety net for lost NOTIFYs (default 2s).
	PollInterval time.Duration
	// Retention is how long published rows are kept before pruning
	// (default 72h; negative keeps them forever).
	Retention time.Duration
}

// Backoff bounds after a failed batch (NATS or database unavailable).
const (
	minBackoff = 100 * time.Millisecond
	maxBackoff = 30 * time.Second
	// publishTimeout bounds the wait for one PubAck.
	publishTimeout = 10 * time.Second
	pruneEvery     = time.Minute
	pruneChunk     = 5000
)

// Relay publishes committed outbox rows of one schema (the pool's current
// schema) to JetStream. Several relays, in one or many processes, can run
// over the same table: FOR UPDATE SKIP LOCKED hands each row to one of them.
// Within one relay rows are published in seq order; across concurrent
// relays, order between batches is not guaranteed.
type Relay struct {
	pool *pgxpool.Pool
	js   jetstream.JetStream
	log  *slog.Logger
	opts RelayOptions
}

// NewRelay returns a relay from the outbox in pool's current schema to js.
func NewRelay(pool *pgxpool.Pool, js jetstream.JetStream, log *slog.Logger, opts RelayOptions) *Relay {
	if log == nil {
		log = slog.Default()
	}
	if opts.Batch <= 0 {
		opts.Batch = 100
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = 2 * time.Second
	}
	if opts.Retention == 0 {
		opts.Retention = 72 * time.Hour
	}
	return &Relay{pool: pool, js: js, log: log.With("component", "outbox-relay"), opts: opts}
}

// Run publishes pending rows until ctx is done, then returns nil. It wakes
// on a NOTIFY of the outbox trigger (over a dedicated connection) or every
// PollInterval, backs off exponentially while publishing fails, and prunes
// published rows older than Retention about once a minute. It returns an
// error only when the outbox schema cannot be determined at start.
func (r *Relay) Run(ctx context.Context) error {
	schema, err := currentSchema(ctx, r.pool)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("outbox: relay: %w", err)
	}
	wake := make(chan struct{}, 1)
	listenDone := make(chan struct{})
	go func() {
		defer close(listenDone)
		r.listen(ctx, Channel(schema), wake)
	}()
	defer func() { <-listenDone }()

	ticker := time.NewTicker(r.opts.PollInterval)
	defer ticker.Stop()
	var backoff time.Duration
	var lastPrune time.Time
	for {
		_, err := r.Flush(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			backoff = min(max(backoff*2, minBackoff), maxBackoff)
			r.log.WarnContext(ctx, "outbox publish failed, backing off", "err", err, "backoff", backoff.String())
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(backoff):
			}
			continue
		}
		backoff = 0
		if r.opts.Retention > 0 && time.Since(lastPrune) >= pruneEvery {
			lastPrune = time.Now()
			if n, err := r.Prune(ctx); err != nil && ctx.Err() == nil {
				r.log.WarnContext(ctx, "outbox prune failed", "err", err)
			} else if n > 0 {
				r.log.DebugContext(ctx, "outbox pruned", "rows", n)
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-wake:
		case <-ticker.C:
		}
	}
}

// Flush publishes all rows pending now, batch by batch, and returns how many
// it published. It stops at the first failure, after marking the rows
// published before it.
func (r *Relay) Flush(ctx context.Context) (int, error) {
	total := 0
	for {
		n, err := r.publishBatch(ctx)
		total += n
		if err != nil || n < r.opts.Batch {
			return total, err
		}
	}
}

type row struct {
	seq     int64
	eventID string
	subject string
	payload []byte
	headers map[string]string
	batch   bool
}

// publishBatch locks up to Batch unpublished rows, publishes them in seq
// order waiting for each PubAck, and marks the published ones.
func (r *Relay) publishBatch(ctx context.Context) (int, error) {
	tx, err := r.pool.Begin(ctx)
	if err != nil {
		return 0, fmt.Errorf("begin: %w", err)
	}
	// Marking and committing must not be cut short by ctx: rows published
	// but left unmarked would be published again (harmless, but avoidable).
	// Their 10 s start when publishing ends: batch rows of tens of
	// thousands of events take longer than that to publish.
	finishCtx := func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	}
	defer func() {
		fctx, cancel := finishCtx()
		defer cancel()
		_ = tx.Rollback(fctx) // no-op after commit
	}()

	rows, err := tx.Query(ctx, `SELECT seq, event_id, subject, payload, headers, batch FROM outbox
		WHERE published_at IS NULL ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED`, r.opts.Batch)
	if err != nil {
		return 0, fmt.Errorf("select: %w", err)
	}
	batch, err := pgx.CollectRows(rows, func(cr pgx.CollectableRow) (row, error) {
		var x row
		err := cr.Scan(&x.seq, &x.eventID, &x.subject, &x.payload, &x.headers, &x.batch)
		return x, err
	})
	if err != nil {
		return 0, fmt.Errorf("select: %w", err)
	}
	if len(batch) == 0 {
		return 0, nil
	}

	done := make([]int64, 0, len(batch))
	var pubErr error
	for _, x := range batch {
		if err := r.publish(ctx, x); err != nil {
			pubErr = fmt.Errorf("publish %s (event %s): %w", x.subject, x.eventID, err)
			break
		}
		done = append(done, x.seq)
	}
	if len(done) > 0 {
		fctx, cancel := finishCtx()
		defer cancel()
		if _, err := tx.Exec(fctx, `UPDATE outbox SET published_at = now() WHERE seq = ANY($1)`, done); err != nil {
			return 0, errors.Join(pubErr, fmt.Errorf("mark published: %w", err))
		}
		if err := tx.Commit(fctx); err != nil {
			return 0, errors.Join(pubErr, fmt.Errorf("commit: %w", err))
		}
	}
	return len(done), pubErr
}

func (r *Relay) publish(ctx context.Context, x row) error {
	if x.batch {
		return r.publishEvents(ctx, x)
	}
	headers, span := producerSpan(x.subject, x.headers, 1)
	defer span.End()
	pctx, cancel := context.WithTimeout(ctx, publishTimeout)
	defer cancel()
	_, err := r.js.PublishMsg(pctx, r.message(x.subject, x.payload, headers), jetstream.WithMsgID(x.eventID))
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	return err
}

// producerSpan continues the trace of the transaction that wrote the row
// (its headers) with a producer span for the publication, and returns the
// headers carrying that span, so the consumer's span is its child. A row
// written outside any trace gets no span.
func producerSpan(subject string, headers map[string]string, n int) (map[string]string, trace.Span) {
	parent := events.Propagator.Extract(context.Background(), propagation.MapCarrier(headers))
	if !trace.SpanContextFromContext(parent).IsValid() {
		return headers, trace.SpanFromContext(context.Background())
	}
	ctx, span := otel.Tracer(tracerName).Start(parent, "publish "+subject,
		trace.WithSpanKind(trace.SpanKindProducer),
		trace.WithAttributes(
			attribute.String("messaging.system", "nats"),
			attribute.String("messaging.destination.name", subject),
			attribute.Int("messaging.batch.message_count", n),
		))
	out := make(map[string]string, len(headers)+1)
	for k, v := range headers {
		out[k] = v
	}
	events.Propagator.Inject(ctx, propagation.MapCarrier(out))
	return out, span
}

const tracerName = "bidradar/pkg/outbox"

func (r *Relay) message(subject string, payload []byte, headers map[string]string) *nats.Msg {
	msg := nats.NewMsg(subject)
	msg.Data = payload
	for k, v := range headers {
		// Verbatim keys ("traceparent"): NATS headers are case-sensitive.
		msg.Header[k] = []string{v}
	}
	return msg
}

// publishEvents publishes the events of a batch row without waiting for
// each PubAck in turn (one connection keeps their order), a window of
// asyncWindow at a time (the client refuses more pending publishes than
// its limit, 4 000 by default); any failure fails the row, which is
// published again later (JetStream drops the repeats by id).
func (r *Relay) publishEvents(ctx context.Context, x row) error {
	evs, err := decodeBatch(x.payload)
	if err != nil {
		return err
	}
	// One span for the batch (an import publishes thousands of events).
	headers, span := producerSpan("batch", x.headers, len(evs))
	defer span.End()
	x.headers = headers
	for start := 0; start < len(evs); start += asyncWindow {
		window := evs[start:min(start+asyncWindow, len(evs))]
		futures := make([]jetstream.PubAckFuture, 0, len(window))
		for _, e := range window {
			f, err := r.js.PublishMsgAsync(r.message(e.Subject, e.Payload, x.headers), jetstream.WithMsgID(e.ID))
			if err != nil {
				return fmt.Errorf("event %s: %w", e.ID, err)
			}
			futures = append(futures, f)
		}
		timeout := time.NewTimer(publishTimeout)
		for i, f := range futures {
			select {
			case <-f.Ok():
			case err := <-f.Err():
				timeout.Stop()
				return fmt.Errorf("event %s: %w", window[i].ID, err)
			case <-timeout.C:
				return fmt.Errorf("event %s: no PubAck within %s", window[i].ID, publishTimeout)
			case <-ctx.Done():
				timeout.Stop()
				return ctx.Err()
			}
		}
		timeout.Stop()
	}
	return nil
}

// asyncWindow bounds the PubAcks a batch row awaits at once.
const asyncWindow = 1000

// Prune deletes published rows older than Retention, in chunks, and returns
// how many it deleted. It does nothing when Retention is negative.
func (r *Relay) Prune(ctx context.Context) (int64, error) {
	if r.opts.Retention < 0 {
		return 0, nil
	}
	var total int64
	for {
		tag, err := r.pool.Exec(ctx, `DELETE FROM outbox WHERE seq IN (
			SELECT seq FROM outbox WHERE published_at < now() - make_interval(secs => $1) LIMIT $2)`,
			r.opts.Retention.Seconds(), pruneChunk)
		if err != nil {
			return total, fmt.Errorf("outbox: prune: %w", err)
		}
		total += tag.RowsAffected()
		if tag.RowsAffected() < pruneChunk {
			return total, nil
		}
	}
}

// listen holds a dedicated connection LISTENing on channel and signals wake
// on every notification, reconnecting after failures until ctx is done.
func (r *Relay) listen(ctx context.Context, channel string, wake chan<- struct{}) {
	signal := func() {
		select {
		case wake <- struct{}{}:
		default:
		}
	}
	for ctx.Err() == nil {
		err := r.listenOnce(ctx, channel, signal)
		if ctx.Err() != nil {
			return
		}
		r.log.WarnContext(ctx, "outbox listener failed, retrying", "err", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
}

func (r *Relay) listenOnce(ctx context.Context, channel string, signal func()) error {
	conn, err := pgx.ConnectConfig(ctx, r.pool.Config().ConnConfig.Copy())
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{channel}.Sanitize()); err != nil {
		return err
	}
	signal() // rows inserted while we were not listening
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return err
		}
		signal()
	}
}
