package events_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	authv1 "bidradar/gen/auth/v1"
	notificationv1 "bidradar/gen/notification/v1"
	projectsv1 "bidradar/gen/projects/v1"
	"bidradar/pkg/events"
	"bidradar/pkg/testutil/natstest"
)

// connect is a fresh NATS with no stream yet.
func connect(t *testing.T) (*nats.Conn, jetstream.JetStream) {
	t.Helper()
	nc, js, err := events.Connect(natstest.Start(t), t.Name())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc, js
}

// publish sends ev on its declared subject under id, payload when given
// (else ev encoded).
func publish(t *testing.T, js jetstream.JetStream, ev proto.Message, id string, payload []byte) {
	t.Helper()
	subject, err := events.SubjectOf(ev)
	if err != nil {
		t.Fatal(err)
	}
	if payload == nil {
		if payload, err = proto.Marshal(ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := events.Publish(context.Background(), js, subject, id, payload); err != nil {
		t.Fatal(err)
	}
}

// A durable of two event types: it creates its stream and the dead
// letters' from the declarations, filters on the two subjects, hands each
// event decoded to its own handler with its subject and id, and
// dead-letters a payload that does not decode without calling anybody.
func TestDurableHandsEachTypeDecoded(t *testing.T) {
	_, js := connect(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan string, 10)
	c := events.Durable("notification-projects",
		events.On(func(_ context.Context, ev *projectsv1.ProjectMatched, m events.Meta) error {
			got <- "matched " + ev.GetProject().GetProjectId() + " " + m.EventID + " " + m.Subject
			return nil
		}),
		events.On(func(_ context.Context, ev *projectsv1.DeadlineApproaching, m events.Meta) error {
			got <- "deadline " + ev.GetProjectId() + " " + m.EventID
			return nil
		}))
	if err := c.Prepare(ctx, js); err != nil {
		t.Fatal(err)
	}
	if c.Stream() != "PROJECTS" || !slices.Equal(c.Subjects(), []string{"projects.v1.project.matched", "projects.v1.deadline.approaching"}) {
		t.Fatalf("stream %s, subjects %v", c.Stream(), c.Subjects())
	}
	for _, stream := range []string{"PROJECTS", events.StreamDeadLetter} {
		if _, err := js.Stream(ctx, stream); err != nil {
			t.Fatalf("%s not created: %v", stream, err)
		}
	}
	done := make(chan struct{})
	go func() { defer close(done); c.Run(ctx, js, quiet) }()

	publish(t, js, &projectsv1.ProjectCreated{EventId: "c1"}, "c1", nil) // not read
	publish(t, js, &projectsv1.ProjectMatched{}, "bad", []byte{0xff, 0xff, 0xff})
	publish(t, js, &projectsv1.ProjectMatched{EventId: "m1", Project: &projectsv1.MatchedProject{ProjectId: "69111111111"}}, "m1", nil)
	publish(t, js, &projectsv1.DeadlineApproaching{EventId: "d1", ProjectId: "69222222222"}, "d1", nil)
	want := []string{"matched 69111111111 m1 projects.v1.project.matched", "deadline 69222222222 d1"}
	for _, w := range want {
		if g := recvString(t, got); g != w {
			t.Fatalf("got %q, want %q", g, w)
		}
	}
	dl, err := js.Stream(ctx, events.StreamDeadLetter)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { si, err := dl.Info(ctx); return err == nil && si.State.Msgs == 1 })
	dead, err := dl.GetMsg(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if dead.Subject != "deadletter.PROJECTS.notification-projects" || !strings.Contains(dead.Header.Get("Bidradar-Dead-Reason"), "decode projects.v1.ProjectMatched") {
		t.Fatalf("dead letter %s %v", dead.Subject, dead.Header)
	}
	cancel()
	<-done
	select {
	case g := <-got:
		t.Fatalf("unexpected %q", g)
	default:
	}

	// Without a Nats-Msg-Id the event's own id is the handler's.
	subject, _ := events.SubjectOf(&projectsv1.DeadlineApproaching{})
	data, _ := proto.Marshal(&projectsv1.DeadlineApproaching{EventId: "d2", ProjectId: "69333333333"})
	if err := c.Handle(context.Background(), subject, "", data); err != nil {
		t.Fatal(err)
	}
	if g := recvString(t, got); g != "deadline 69333333333 d2" {
		t.Fatalf("got %q", g)
	}
	if err := c.Handle(context.Background(), subject, "x", []byte{0xff}); !errors.Is(err, events.ErrPermanent) {
		t.Fatalf("undecodable: %v, want permanent", err)
	}

	r := findReader(t, t.Name(), events.ReaderDurable, "notification-projects")
	if r.Stream != "PROJECTS" || !slices.Equal(r.Events, []protoreflect.FullName{"projects.v1.ProjectMatched", "projects.v1.DeadlineApproaching"}) {
		t.Fatalf("reader %+v", r)
	}
}

func findReader(t *testing.T, service string, kind events.ReaderKind, durable string) events.Reader {
	t.Helper()
	for _, r := range events.Readers() {
		if r.Service == service && r.Kind == kind && r.Durable == durable {
			return r
		}
	}
	t.Fatalf("no %s reader %q of %s among %+v", kind, durable, service, events.Readers())
	return events.Reader{}
}

// A consumer of a message that is no declared event, of events of two
// streams, of one type twice, or with a bad name does not start.
func TestDurableRefusesWhatCannotRun(t *testing.T) {
	_, js := connect(t)
	matched := events.On(func(context.Context, *projectsv1.ProjectMatched, events.Meta) error { return nil })
	for want, c := range map[string]events.Consumer{
		"projects.v1.MatchedProject is not an event": events.Durable("x",
			events.On(func(context.Context, *projectsv1.MatchedProject, events.Meta) error { return nil })),
		"one reader reads one stream": events.Durable("x", matched,
			events.On(func(context.Context, *authv1.SessionEnded, events.Meta) error { return nil })),
		"two handlers of projects.v1.ProjectMatched": events.Durable("x", matched, matched),
		"consumer name":         events.Durable("a.b", matched),
		"at least one handler":  events.Durable("x"),
		"concrete message type": events.Durable("x", events.On(func(context.Context, proto.Message, events.Meta) error { return nil })),
	} {
		if err := c.Prepare(context.Background(), js); err == nil || !strings.Contains(err.Error(), want) || c.Err() == nil {
			t.Errorf("%s: Prepare = %v", want, err)
		}
	}
}

// A core subscription of two event types: one subscription, so they arrive
// in the order published; a payload that does not decode is skipped.
func TestSubscribeInOrder(t *testing.T) {
	nc, _ := connect(t)
	got := make(chan string, 10)
	sub, err := events.Subscribe(nc, quiet,
		events.On(func(_ context.Context, ev *notificationv1.NotificationCreated, _ events.Meta) error {
			got <- "created " + ev.GetUserId()
			return nil
		}),
		events.On(func(_ context.Context, ev *notificationv1.UnreadCountChanged, _ events.Meta) error {
			got <- fmt.Sprint("unread ", ev.GetUserId(), " ", ev.GetUnreadCount())
			return nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sub.Unsubscribe() }() // closing the connection drops it anyway
	if sub.Subject != "notification.v1.user.*.*" {
		t.Fatalf("subscribed to %s", sub.Subject)
	}
	send := func(ev proto.Message, data []byte) {
		subject, err := events.SubjectOf(ev)
		if err != nil {
			t.Fatal(err)
		}
		if data == nil {
			data, _ = proto.Marshal(ev)
		}
		if err := nc.Publish(subject, data); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 20 {
		send(&notificationv1.NotificationCreated{UserId: "u1"}, nil)
		send(&notificationv1.NotificationCreated{UserId: "u1"}, []byte{0xff})
		send(&notificationv1.UnreadCountChanged{UserId: "u1", UnreadCount: int64(i)}, nil)
	}
	for i := range 20 {
		if g := recvString(t, got); g != "created u1" {
			t.Fatalf("%d: %q", i, g)
		}
		if g := recvString(t, got); g != fmt.Sprint("unread u1 ", i) {
			t.Fatalf("%d: %q", i, g)
		}
	}
	findReader(t, t.Name(), events.ReaderCore, "")
}

// A follower reads the events of the last while at its start, then the new
// ones; it waits for a stream not created yet.
func TestFollowFromBack(t *testing.T) {
	_, js := connect(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan string, 10)
	f := events.Follow(time.Hour, events.On(func(_ context.Context, ev *authv1.SessionEnded, m events.Meta) error {
		got <- m.EventID + " " + strings.Join(ev.GetFamilyIds(), ",")
		return nil
	}))
	if err := f.Prepare(js); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); f.Run(ctx, js, quiet) }()
	if err := events.EnsureStreams(ctx, js, "AUTH"); err != nil {
		t.Fatal(err)
	}
	publish(t, js, &authv1.SessionEnded{EventId: "s1", FamilyIds: []string{"f1", "f2"}}, "s1", nil)
	publish(t, js, &authv1.UserVerified{EventId: "v1"}, "v1", nil) // not followed
	publish(t, js, &authv1.SessionEnded{EventId: "s2", FamilyIds: []string{"f3"}}, "s2", nil)
	for _, w := range []string{"s1 f1,f2", "s2 f3"} {
		select {
		case g := <-got:
			if g != w {
				t.Fatalf("got %q, want %q", g, w)
			}
		case <-time.After(10 * time.Second): // the follower retries every 2 s until the stream exists
			t.Fatalf("%q not followed", w)
		}
	}
	cancel()
	<-done
	findReader(t, t.Name(), events.ReaderOrdered, "")
}
