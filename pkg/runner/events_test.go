package runner_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"google.golang.org/protobuf/proto"

	authv1 "bidradar/gen/auth/v1"
	interestsv1 "bidradar/gen/interests/v1"
	projectsv1 "bidradar/gen/projects/v1"
	"bidradar/pkg/authn"
	"bidradar/pkg/events"
	"bidradar/pkg/outbox"
	"bidradar/pkg/pgdb"
	"bidradar/pkg/runner"
	"bidradar/pkg/testutil/natstest"
	"bidradar/pkg/testutil/pgtest"
)

// ConnectEvents wires a service's events from the declarations: its own
// stream (interests: INTERESTS) gets its outbox, Forget erases a deleted
// user, a consumer's typed handler gets the events of another service, and
// all of it stops with the server.
func TestConnectEvents(t *testing.T) {
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	pool, err := pgdb.Open(ctx, pgtest.NewDatabase(t), "interests")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := outbox.Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	url := natstest.Start(t)
	srv, err := runner.NewRPCServer(log, testIdentity(t, "interests"), "127.0.0.1:1", authn.Admins{})
	if err != nil {
		t.Fatal(err)
	}
	forgot := make(chan string, 1)
	created := make(chan string, 1)
	bad := events.Durable("interests-bad", events.On(func(context.Context, *projectsv1.MatchedProject, events.Meta) error { return nil }))
	if _, err := srv.ConnectEvents(ctx, url, pool, runner.Events{Name: "interests", Consumers: []events.Consumer{bad}}); err == nil ||
		!strings.Contains(err.Error(), "not an event") {
		t.Fatalf("a consumer of a message that is no event: %v", err)
	}
	srv.Close()

	srv, _ = runner.NewRPCServer(log, testIdentity(t, "interests"), "127.0.0.1:1", authn.Admins{})
	js, err := srv.ConnectEvents(ctx, url, pool, runner.Events{
		Name:   "interests",
		Forget: func(_ context.Context, user string) error { forgot <- user; return nil },
		Consumers: []events.Consumer{events.Durable("interests-projects",
			events.On(func(_ context.Context, ev *projectsv1.ProjectCreated, _ events.Meta) error {
				created <- ev.GetProjectId()
				return nil
			}))},
	})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	ran := make(chan error, 1)
	go func() { ran <- srv.Run(runCtx, ln) }()

	// The relay publishes the outbox on the declared stream.
	if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		return outbox.EnqueueEvent(ctx, tx, &interestsv1.CommentAdded{EventId: "c1", UserId: "u1", ProjectId: "p1"})
	}); err != nil {
		t.Fatal(err)
	}
	st, err := js.Stream(ctx, "INTERESTS")
	if err != nil {
		t.Fatal(err)
	}
	if !eventually(func() bool { info, err := st.Info(ctx); return err == nil && info.State.Msgs == 1 }) {
		t.Fatal("the outbox was not relayed to INTERESTS")
	}
	for _, ev := range []interface {
		proto.Message
		GetEventId() string
	}{&authv1.UserDeactivated{EventId: "d1", UserId: "u1"}, &projectsv1.ProjectCreated{EventId: "p1", ProjectId: "69111111111"}} {
		subject, _ := events.SubjectOf(ev)
		data, _ := proto.Marshal(ev)
		if err := events.Publish(ctx, js, subject, ev.GetEventId(), data); err != nil {
			t.Fatal(err)
		}
	}
	for ch, want := range map[chan string]string{forgot: "u1", created: "69111111111"} {
		select {
		case got := <-ch:
			if got != want {
				t.Fatalf("got %q, want %q", got, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%q never handled", want)
		}
	}
	// Every consumer's durable exists, filtered on its declared subjects.
	cons, err := js.Consumer(ctx, "AUTH", "interests-forget-users")
	if err != nil {
		t.Fatal(err)
	}
	if f, _ := events.SubjectOf(&authv1.UserDeactivated{}); cons.CachedInfo().Config.FilterSubject != f {
		t.Fatalf("forget filter %q, want %q", cons.CachedInfo().Config.FilterSubject, f)
	}
	if _, err := js.Consumer(ctx, "PROJECTS", "interests-projects"); err != nil {
		t.Fatal(err)
	}
	if _, err := js.Stream(ctx, events.StreamDeadLetter); err != nil {
		t.Fatalf("the dead letters' stream: %v", err)
	}
	stop()
	if err := <-ran; err != nil {
		t.Fatal(err)
	}

	if !slices.ContainsFunc(events.Producers(), func(p events.Producer) bool {
		return p.Service == "interests" && slices.Equal(p.Streams, []string{"INTERESTS"})
	}) {
		t.Fatalf("producers %+v", events.Producers())
	}
	var readers []string
	for _, r := range events.Readers() {
		if r.Service == "interests" {
			readers = append(readers, string(r.Kind)+" "+r.Durable+" "+r.Stream)
		}
	}
	if !slices.Equal(readers, []string{"durable interests-forget-users AUTH", "durable interests-projects PROJECTS", "ordered  AUTH"}) {
		t.Fatalf("readers %q", readers)
	}
}

func eventually(cond func() bool) bool {
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}
