package events_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"bidradar/pkg/events"
	"bidradar/pkg/pgdb"
	"bidradar/pkg/testutil/natstest"
	"bidradar/pkg/testutil/pgtest"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel/trace"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

type delivery struct {
	subject, eventID, data string
	traceID                trace.TraceID
}

func setup(t *testing.T) jetstream.JetStream {
	t.Helper()
	url := natstest.Start(t)
	nc, js, err := events.Connect(url, t.Name())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	if err := events.EnsureStream(context.Background(), js, "PROJECTS", []string{"projects.>"}); err != nil {
		t.Fatal(err)
	}
	// Idempotent (update path).
	if err := events.EnsureStream(context.Background(), js, "PROJECTS", []string{"projects.>"}); err != nil {
		t.Fatal(err)
	}
	return js
}

func tracedContext() (context.Context, trace.TraceID) {
	tid := trace.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36}
	sc := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: tid, SpanID: trace.SpanID{0, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7}, TraceFlags: trace.FlagsSampled,
	})
	return trace.ContextWithSpanContext(context.Background(), sc), tid
}

func TestPublishConsumeTraceAndDedup(t *testing.T) {
	js := setup(t)
	ctx, tid := tracedContext()

	for range 2 { // the second publish is dropped by Nats-Msg-Id dedup
		if err := events.Publish(ctx, js, "projects.v1.x", "evt-1", []byte("โครงการ 1")); err != nil {
			t.Fatal(err)
		}
	}
	if err := events.Publish(ctx, js, "projects.v1.y", "evt-2", []byte("two")); err != nil {
		t.Fatal(err)
	}
	st, err := js.Stream(ctx, "PROJECTS")
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != 2 {
		t.Fatalf("stream has %d messages, want 2", info.State.Msgs)
	}
	msg, err := st.GetMsg(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if tp := msg.Header["traceparent"]; len(tp) != 1 || tp[0] != "00-"+tid.String()+"-00f067aa0ba902b7-01" {
		t.Fatalf("no traceparent header: %v", msg.Header)
	}

	got := make(chan delivery, 10)
	stop, err := events.Consume(context.Background(), js, "PROJECTS", "notification", []string{"projects.v1.x"},
		func(ctx context.Context, subject, eventID string, data []byte) error {
			got <- delivery{subject, eventID, string(data), trace.SpanContextFromContext(ctx).TraceID()}
			return nil
		}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	d := recv(t, got)
	if d.subject != "projects.v1.x" || d.eventID != "evt-1" || d.data != "โครงการ 1" {
		t.Fatalf("got %+v", d)
	}
	if d.traceID != tid {
		t.Fatalf("trace id %s, want %s", d.traceID, tid)
	}
	select { // filtered out: project.updated
	case d := <-got:
		t.Fatalf("unexpected delivery %+v", d)
	case <-time.After(200 * time.Millisecond):
	}
	stop()
	stop() // safe twice
}

func TestConsumeRetryTermAndDurable(t *testing.T) {
	js := setup(t)
	ctx := context.Background()
	var mu sync.Mutex
	calls := map[string]int{}
	got := make(chan string, 20)
	handler := func(ctx context.Context, subject, eventID string, data []byte) error {
		mu.Lock()
		calls[eventID]++
		n := calls[eventID]
		mu.Unlock()
		got <- eventID
		switch {
		case eventID == "flaky" && n == 1:
			return errors.New("database is down")
		case eventID == "poison":
			return fmt.Errorf("decode: %w", events.ErrPermanent)
		case eventID == "panic" && n == 1:
			panic("boom")
		}
		return nil
	}
	if err := events.EnsureStream(ctx, js, events.StreamDeadLetter, []string{events.DeadLetterPrefix + ".>"}); err != nil {
		t.Fatal(err)
	}
	stop, err := events.Consume(ctx, js, "PROJECTS", "interests", nil, handler, quiet)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"flaky", "poison", "panic", "ok"} {
		if err := events.Publish(ctx, js, "projects.v1.x", id, nil); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]int{"flaky": 2, "poison": 1, "panic": 2, "ok": 1}
	deadline := time.After(10 * time.Second)
	for {
		mu.Lock()
		done := calls["flaky"] == 2 && calls["panic"] == 2 && calls["ok"] == 1 && calls["poison"] == 1
		mu.Unlock()
		if done {
			break
		}
		select {
		case <-got:
		case <-deadline:
			t.Fatalf("calls %v, want %v", calls, want)
		}
	}
	// Everything is acked or terminated: nothing pending, nothing redelivered again.
	cons, err := js.Consumer(ctx, "PROJECTS", "interests")
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		ci, err := cons.Info(ctx)
		return err == nil && ci.NumAckPending == 0 && ci.NumPending == 0
	})
	stop()
	for len(got) > 0 {
		<-got
	}
	// The poison message, and only it, is in the dead-letter stream with its origin.
	dl, err := js.Stream(ctx, events.StreamDeadLetter)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { si, err := dl.Info(ctx); return err == nil && si.State.Msgs == 1 })
	dead, err := dl.GetMsg(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if dead.Subject != "deadletter.PROJECTS.interests" || dead.Header.Get("Bidradar-Original-Subject") != "projects.v1.x" ||
		!strings.HasSuffix(dead.Header.Get(nats.MsgIdHdr), ":poison") {
		t.Fatalf("dead letter %s %v", dead.Subject, dead.Header)
	}

	// Durable: a restarted consumer resumes after the acked messages.
	if err := events.Publish(ctx, js, "projects.v1.x", "later", nil); err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	stop2, err := events.Consume(cctx, js, "PROJECTS", "interests", nil, handler, quiet)
	if err != nil {
		t.Fatal(err)
	}
	if id := recvString(t, got); id != "later" {
		t.Fatalf("after restart got %q, want later", id)
	}
	cancel() // ctx cancellation stops consumption
	stop2()
	mu.Lock()
	defer mu.Unlock()
	for id, n := range want {
		if calls[id] != n {
			t.Errorf("%s handled %d times, want %d", id, calls[id], n)
		}
	}
}

func TestMarkProcessed(t *testing.T) {
	ctx := context.Background()
	pool, err := pgdb.Open(ctx, pgtest.NewDatabase(t), "notification")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	for range 2 {
		if err := events.EnsureProcessedTable(ctx, pool); err != nil {
			t.Fatal(err)
		}
	}
	mark := func(consumer, id string, commit bool) bool {
		tx, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = tx.Rollback(ctx) }() // a no-op after Commit
		first, err := events.MarkProcessed(ctx, tx, consumer, id)
		if err != nil {
			t.Fatal(err)
		}
		if commit {
			if err := tx.Commit(ctx); err != nil {
				t.Fatal(err)
			}
		}
		return first
	}
	if !mark("notification", "e1", false) {
		t.Fatal("first mark not first")
	}
	if !mark("notification", "e1", true) { // the rolled-back mark did not count
		t.Fatal("mark after rollback not first")
	}
	if mark("notification", "e1", true) {
		t.Fatal("redelivery reported as first")
	}
	if !mark("realtime", "e1", true) {
		t.Fatal("another consumer is independent")
	}
	var n int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM notification.processed_events").Scan(&n); err != nil || n != 2 {
		t.Fatalf("rows %d err %v", n, err)
	}
}

func recv(t *testing.T, ch <-chan delivery) delivery {
	t.Helper()
	select {
	case d := <-ch:
		return d
	case <-time.After(5 * time.Second):
		t.Fatal("no delivery within 5s")
		return delivery{}
	}
}

func recvString(t *testing.T, ch <-chan string) string {
	t.Helper()
	select {
	case d := <-ch:
		return d
	case <-time.After(5 * time.Second):
		t.Fatal("no delivery within 5s")
		return ""
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 5s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A backlog longer than the old first ack wait (1 s) takes a slow handler
// 2.4 s: while each message is within its ack wait (it waits in the
// client's buffer meanwhile), none is delivered a second time.
func TestSlowBacklogIsNotRedelivered(t *testing.T) {
	js := setup(t)
	ctx := context.Background()
	const n = 40
	for i := range n {
		if err := events.Publish(ctx, js, "projects.v1.x", fmt.Sprint("slow-", i), nil); err != nil {
			t.Fatal(err)
		}
	}
	// The durable as the earlier configuration made it (BackOff from 1 s)
	// is updated in place.
	if _, err := js.CreateOrUpdateConsumer(ctx, "PROJECTS", jetstream.ConsumerConfig{Durable: "slow",
		AckPolicy: jetstream.AckExplicitPolicy, MaxDeliver: events.MaxDeliver, BackOff: events.RetryDelays, MaxAckPending: 1000,
	}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	calls := map[string]int{}
	total := 0
	stop, err := events.Consume(ctx, js, "PROJECTS", "slow", nil, func(_ context.Context, _, id string, _ []byte) error {
		time.Sleep(60 * time.Millisecond)
		mu.Lock()
		defer mu.Unlock()
		calls[id]++
		total++
		return nil
	}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	cons, err := js.Consumer(ctx, "PROJECTS", "slow")
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		ci, err := cons.Info(ctx)
		if err == nil && ci.NumAckPending == 0 && ci.NumPending == 0 && ci.AckFloor.Consumer >= n {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("backlog not drained: %+v %v", ci, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	ci, err := cons.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ci.Config.AckWait != events.AckWait || len(ci.Config.BackOff) != 0 {
		t.Fatalf("consumer ack wait %s, backoff %v", ci.Config.AckWait, ci.Config.BackOff)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(calls) != n || total != n || ci.NumRedelivered != 0 || ci.Delivered.Consumer != n {
		t.Fatalf("%d events handled %d times, %d redelivered, %d deliveries; want %d once each", len(calls), total,
			ci.NumRedelivered, ci.Delivered.Consumer, n)
	}
}
