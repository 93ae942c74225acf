package outbox_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	projectsv1 "bidradar/gen/projects/v1"
	"bidradar/pkg/events"
	"bidradar/pkg/outbox"
	"bidradar/pkg/pgdb"
	"bidradar/pkg/testutil/eventually"
	"bidradar/pkg/testutil/natstest"
	"bidradar/pkg/testutil/pgtest"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/protobuf/proto"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

type env struct {
	pool *pgxpool.Pool
	nc   *nats.Conn
	js   jetstream.JetStream
}

func setup(t *testing.T) env {
	t.Helper()
	ctx := context.Background()
	pool, err := pgdb.Open(ctx, pgtest.NewDatabase(t), "projects")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	for range 2 { // idempotent
		if err := outbox.Migrate(ctx, pool); err != nil {
			t.Fatal(err)
		}
	}
	nc, js, err := events.Connect(natstest.Start(t), t.Name())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	if err := events.EnsureStreams(ctx, js, "PROJECTS"); err != nil {
		t.Fatal(err)
	}
	return env{pool, nc, js}
}

// created is the event the tests enqueue: id, and a name that tells its
// payload apart.
func created(id string) *projectsv1.ProjectCreated {
	return &projectsv1.ProjectCreated{EventId: id, ProjectName: "payload " + id}
}

// undeclared is a message with an id that its proto does not declare an event.
type undeclared struct{ *projectsv1.MatchedProject }

func (undeclared) GetEventId() string { return "u-1" }

// nameOf decodes what created encoded.
func nameOf(t testing.TB, data []byte) string {
	t.Helper()
	var ev projectsv1.ProjectCreated
	if err := proto.Unmarshal(data, &ev); err != nil {
		t.Error(err)
	}
	return ev.GetProjectName()
}

func subject(t testing.TB, ev proto.Message) string {
	t.Helper()
	s, err := events.SubjectOf(ev)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func enqueue(t testing.TB, ctx context.Context, pool *pgxpool.Pool, commit bool, ids ...string) {
	t.Helper()
	err := func() error {
		tx, err := pool.Begin(ctx)
		if err != nil {
			return err
		}
		defer func() { _ = tx.Rollback(ctx) }() // a no-op after Commit
		for _, id := range ids {
			if err := outbox.EnqueueEvent(ctx, tx, created(id)); err != nil {
				return err
			}
		}
		if commit {
			return tx.Commit(ctx)
		}
		return nil
	}()
	if err != nil {
		t.Error(err)
	}
}

func streamMsgs(t *testing.T, e env) uint64 {
	t.Helper()
	st, err := e.js.Stream(context.Background(), "PROJECTS")
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return info.State.Msgs
}

func unpublished(t *testing.T, e env) int {
	t.Helper()
	var n int
	if err := e.pool.QueryRow(context.Background(), "SELECT count(*) FROM outbox WHERE published_at IS NULL").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestRolledBackTransactionPublishesNothing(t *testing.T) {
	e := setup(t)
	ctx := context.Background()
	enqueue(t, ctx, e.pool, false, "rolled-back-1", "rolled-back-2")
	r := outbox.NewRelay(e.pool, e.js, quiet, outbox.RelayOptions{})
	n, err := r.Flush(ctx)
	if err != nil || n != 0 {
		t.Fatalf("Flush = %d, %v", n, err)
	}
	var rows int
	if err := e.pool.QueryRow(ctx, "SELECT count(*) FROM outbox").Scan(&rows); err != nil || rows != 0 {
		t.Fatalf("outbox rows %d %v", rows, err)
	}
	if m := streamMsgs(t, e); m != 0 {
		t.Fatalf("stream has %d messages", m)
	}
}

func TestCommittedEventsArriveOnceViaNotify(t *testing.T) {
	e := setup(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	type got struct {
		id    string
		data  string
		trace trace.TraceID
	}
	ch := make(chan got, 10)
	stop, err := events.Consume(ctx, e.js, "PROJECTS", "test", nil, func(ctx context.Context, _, id string, data []byte) error {
		ch <- got{id, nameOf(t, data), trace.SpanContextFromContext(ctx).TraceID()}
		return nil
	}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()

	// A poll interval of an hour: only the NOTIFY of the trigger wakes the relay.
	r := outbox.NewRelay(e.pool, e.js, quiet, outbox.RelayOptions{Batch: 2, PollInterval: time.Hour})
	runDone := make(chan error, 1)
	go func() { runDone <- r.Run(ctx) }()
	eventually.True(t, 5*time.Second, "the relay LISTENs", func() bool { return listening(t, e) })

	tid := trace.TraceID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	tctx := trace.ContextWithSpanContext(ctx, trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: tid, SpanID: trace.SpanID{1, 2, 3, 4, 5, 6, 7, 8}, TraceFlags: trace.FlagsSampled}))
	enqueue(t, tctx, e.pool, true, "e1", "e2", "e3")
	enqueue(t, tctx, e.pool, true, "e4")

	for i, want := range []string{"e1", "e2", "e3", "e4"} {
		select {
		case g := <-ch:
			if g.id != want || g.data != "payload "+want {
				t.Fatalf("message %d = %+v, want %s", i, g, want)
			}
			if g.trace != tid {
				t.Fatalf("trace %s, want %s", g.trace, tid)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("message %d (%s) not received", i, want)
		}
	}
	select {
	case g := <-ch:
		t.Fatalf("extra message %+v", g)
	case <-time.After(200 * time.Millisecond):
	}
	if n := unpublished(t, e); n != 0 {
		t.Fatalf("%d rows unpublished", n)
	}
	if m := streamMsgs(t, e); m != 4 {
		t.Fatalf("stream has %d messages", m)
	}
	cancel()
	select {
	case err := <-runDone:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
}

func TestCrashBetweenPublishAndMarkIsDeduplicated(t *testing.T) {
	e := setup(t)
	ctx := context.Background()
	enqueue(t, ctx, e.pool, true, "crash-1")
	// The crashed relay had published the row but not marked it.
	b, _ := proto.Marshal(created("crash-1"))
	if err := events.Publish(ctx, e.js, subject(t, created("crash-1")), "crash-1", b); err != nil {
		t.Fatal(err)
	}
	r := outbox.NewRelay(e.pool, e.js, quiet, outbox.RelayOptions{})
	if n, err := r.Flush(ctx); err != nil || n != 1 {
		t.Fatalf("Flush = %d, %v", n, err)
	}
	if m := streamMsgs(t, e); m != 1 {
		t.Fatalf("stream has %d messages, want 1", m)
	}
	ch := make(chan string, 4)
	stop, err := events.Consume(ctx, e.js, "PROJECTS", "c", nil, func(_ context.Context, _, id string, _ []byte) error {
		ch <- id
		return nil
	}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if id := <-ch; id != "crash-1" {
		t.Fatal(id)
	}
	select {
	case id := <-ch:
		t.Fatalf("duplicate delivery %s", id)
	case <-time.After(300 * time.Millisecond):
	}
	if n := unpublished(t, e); n != 0 {
		t.Fatalf("%d unpublished", n)
	}
}

func TestNATSDownThenRecovers(t *testing.T) {
	e := setup(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Publishing fails while the stream does not exist; rows stay pending.
	if err := e.js.DeleteStream(ctx, "PROJECTS"); err != nil {
		t.Fatal(err)
	}
	enqueue(t, ctx, e.pool, true, "d1", "d2")
	failed := make(chan struct{}, 1)
	r := outbox.NewRelay(e.pool, e.js, slog.New(onMessage{"outbox publish failed", failed}), outbox.RelayOptions{PollInterval: 50 * time.Millisecond})
	if _, err := r.Flush(ctx); err == nil {
		t.Fatal("Flush without a stream: no error")
	}
	done := make(chan struct{})
	go func() { defer close(done); _ = r.Run(ctx) }()
	select { // the running relay tried too, and failed
	case <-failed:
	case <-time.After(5 * time.Second):
		t.Fatal("the relay did not try to publish")
	}
	if n := unpublished(t, e); n != 2 {
		t.Fatalf("%d unpublished, want 2", n)
	}
	if err := events.EnsureStreams(ctx, e.js, "PROJECTS"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for unpublished(t, e) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("rows not published after NATS recovered")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if m := streamMsgs(t, e); m != 2 {
		t.Fatalf("stream has %d messages", m)
	}
	cancel()
	<-done
}

func TestConcurrentRelaysPublishEveryRowOnce(t *testing.T) {
	e := setup(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	// A core subscription sees every publish, including ones JetStream would
	// drop as duplicates: it proves that no row was published twice.
	var mu sync.Mutex
	seen := map[string]int{}
	sub, err := e.nc.Subscribe(subject(t, created("x")), func(m *nats.Msg) {
		mu.Lock()
		seen[m.Header.Get(nats.MsgIdHdr)]++
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sub.Unsubscribe() }() // closing the connection drops it anyway

	var relays sync.WaitGroup
	for range 2 {
		r := outbox.NewRelay(e.pool, e.js, quiet, outbox.RelayOptions{Batch: 16, PollInterval: 50 * time.Millisecond})
		relays.Go(func() {
			if err := r.Run(ctx); err != nil {
				t.Error(err)
			}
		})
	}
	const writers, perWriter = 4, 125
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range perWriter {
				ids := []string{fmt.Sprintf("w%d-%03d", w, i)}
				enqueue(t, ctx, e.pool, true, ids...)
			}
		})
	}
	wg.Wait()

	deadline := time.Now().Add(20 * time.Second)
	for unpublished(t, e) != 0 || streamMsgs(t, e) != writers*perWriter {
		if time.Now().After(deadline) {
			t.Fatalf("unpublished %d, stream %d", unpublished(t, e), streamMsgs(t, e))
		}
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	relays.Wait()
	if err := e.nc.Flush(); err != nil {
		t.Fatal(err)
	}
	// Every message the connection received has been counted.
	eventually.True(t, 5*time.Second, "the subscription's messages counted", func() bool {
		pending, _, _ := sub.Pending()
		delivered, _ := sub.Delivered()
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, c := range seen {
			n += c
		}
		return pending == 0 && int64(n) == delivered
	})

	mu.Lock()
	defer mu.Unlock()
	if len(seen) != writers*perWriter {
		t.Fatalf("%d distinct event ids published, want %d", len(seen), writers*perWriter)
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("%s published %d times", id, n)
		}
	}
	st, _ := e.js.Stream(context.Background(), "PROJECTS")
	info, _ := st.Info(context.Background())
	if info.State.LastSeq != writers*perWriter {
		t.Fatalf("stream last seq %d", info.State.LastSeq)
	}
}

func TestPrune(t *testing.T) {
	e := setup(t)
	ctx := context.Background()
	enqueue(t, ctx, e.pool, true, "old", "new", "pending")
	if _, err := e.pool.Exec(ctx, `UPDATE outbox SET published_at = CASE event_id
		WHEN 'old' THEN now() - interval '2 hours' WHEN 'new' THEN now() END WHERE event_id <> 'pending'`); err != nil {
		t.Fatal(err)
	}
	r := outbox.NewRelay(e.pool, e.js, quiet, outbox.RelayOptions{Retention: time.Hour})
	n, err := r.Prune(ctx)
	if err != nil || n != 1 {
		t.Fatalf("Prune = %d, %v", n, err)
	}
	rows, _ := e.pool.Query(ctx, "SELECT event_id FROM outbox ORDER BY seq")
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(ids) != 2 || ids[0] != "new" || ids[1] != "pending" {
		t.Fatalf("left %v %v", ids, err)
	}
}

func TestBatchRowPublishesEachEventInOrder(t *testing.T) {
	e := setup(t)
	ctx := context.Background()
	var evs []outbox.ProtoEvent
	for i := range 2500 { // more than one window of PubAcks
		evs = append(evs, created(fmt.Sprintf("b-%04d", i)))
	}
	tx, err := e.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := outbox.EnqueueBatch(ctx, tx, []outbox.ProtoEvent{created("b-x"), created("")}); err == nil {
		t.Fatal("an event without id was accepted")
	}
	if err := outbox.EnqueueBatch(ctx, tx, []outbox.ProtoEvent{created("b-x"), undeclared{&projectsv1.MatchedProject{}}}); err == nil {
		t.Fatal("a message that is not declared an event was accepted")
	}
	if err := outbox.EnqueueBatch(ctx, tx, evs); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	var rows int
	if err := e.pool.QueryRow(ctx, "SELECT count(*) FROM outbox").Scan(&rows); err != nil || rows != 1 {
		t.Fatalf("%d outbox rows, %v; want one batch row", rows, err)
	}
	stored, err := outbox.Stored(ctx, e.pool)
	if err != nil || len(stored) != len(evs) || stored[2499].ID != "b-2499" || nameOf(t, stored[3].Payload) != "payload b-0003" ||
		stored[3].Subject != subject(t, created("x")) {
		t.Fatalf("Stored: %d events, %v", len(stored), err)
	}
	// A relay that crashed after publishing the first events: they are
	// dropped as duplicates when the row is published again.
	for _, ev := range stored[:10] {
		if err := events.Publish(ctx, e.js, ev.Subject, ev.ID, ev.Payload); err != nil {
			t.Fatal(err)
		}
	}
	r := outbox.NewRelay(e.pool, e.js, quiet, outbox.RelayOptions{})
	if n, err := r.Flush(ctx); err != nil || n != 1 {
		t.Fatalf("Flush = %d, %v", n, err)
	}
	if m := streamMsgs(t, e); m != 2500 {
		t.Fatalf("stream has %d messages, want 2500", m)
	}
	type got struct {
		id, payload string
	}
	ch := make(chan got, 3000)
	stop, err := events.Consume(ctx, e.js, "PROJECTS", "c", nil, func(_ context.Context, _, id string, data []byte) error {
		ch <- got{id, string(data)}
		return nil
	}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	for i, ev := range stored {
		select {
		case g := <-ch:
			if g.id != ev.ID || g.payload != string(ev.Payload) {
				t.Fatalf("message %d = %+v, want %s %q", i, g, ev.ID, ev.Payload)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("message %d missing", i)
		}
	}
	if n := unpublished(t, e); n != 0 {
		t.Fatalf("%d unpublished", n)
	}
}

// listening reports whether a session of the test's database LISTENs (the
// relay's listener, ready for the trigger's NOTIFY).
func listening(t *testing.T, e env) bool {
	t.Helper()
	var n int
	if err := e.pool.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE 'LISTEN %'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n > 0
}

// onMessage is a log handler that signals on a record whose message starts
// with msg.
type onMessage struct {
	msg    string
	signal chan<- struct{}
}

func (h onMessage) Enabled(context.Context, slog.Level) bool { return true }
func (h onMessage) Handle(_ context.Context, r slog.Record) error {
	if strings.HasPrefix(r.Message, h.msg) {
		select {
		case h.signal <- struct{}{}:
		default:
		}
	}
	return nil
}
func (h onMessage) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h onMessage) WithGroup(string) slog.Handler      { return h }
