package runner_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"

	projectsv1 "bidradar/gen/projects/v1"
	"bidradar/pkg/events"
	"bidradar/pkg/runner"
	"bidradar/pkg/testutil/natstest"
)

// The replay-dead-letters command checks its arguments and NATS_URL, and
// replays a consumer's dead letters (events.ReplayDeadLetters has the
// cases; this is the wiring).
func TestReplayDeadLettersCommand(t *testing.T) {
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	url := natstest.Start(t)
	env := func(vars map[string]string) runner.Getenv { return func(k string) string { return vars[k] } }
	if err := runner.ReplayDeadLetters(ctx, "notification", []string{"PROJECTS"}, env(map[string]string{"NATS_URL": url}), log); err == nil ||
		!strings.Contains(err.Error(), "usage: notification replay-dead-letters STREAM CONSUMER") {
		t.Fatalf("one argument: %v", err)
	}
	if err := runner.ReplayDeadLetters(ctx, "notification", []string{"PROJECTS", "notification-projects"}, env(nil), log); err == nil ||
		!strings.Contains(err.Error(), "NATS_URL") {
		t.Fatalf("no NATS_URL: %v", err)
	}

	// No dead-letter stream yet: nothing to replay.
	if err := runner.ReplayDeadLetters(ctx, "notification", []string{"PROJECTS", "notification-projects"}, env(map[string]string{"NATS_URL": url}), log); err != nil {
		t.Fatalf("no dead-letter stream: %v", err)
	}

	nc, js, err := events.Connect(url, t.Name())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	for name, subjects := range map[string][]string{"PROJECTS": {"projects.>"}, events.StreamDeadLetter: {events.DeadLetterPrefix + ".>"}} {
		if err := events.EnsureStream(ctx, js, name, subjects); err != nil {
			t.Fatal(err)
		}
	}
	matched, _ := events.SubjectOf(&projectsv1.ProjectMatched{})
	dead := nats.NewMsg(events.DeadLetterPrefix + ".PROJECTS.notification-projects")
	dead.Data = []byte("payload")
	dead.Header.Set("Bidradar-Original-Subject", matched)
	dead.Header.Set(nats.MsgIdHdr, "dead:notification-projects:event-1")
	if _, err := js.PublishMsg(ctx, dead); err != nil {
		t.Fatal(err)
	}
	if err := runner.ReplayDeadLetters(ctx, "notification", []string{"PROJECTS", "notification-projects"}, env(map[string]string{"NATS_URL": url}), log); err != nil {
		t.Fatal(err)
	}
	s, err := js.Stream(ctx, "PROJECTS")
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.GetMsg(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if m.Subject != matched || string(m.Data) != "payload" || m.Header.Get(nats.MsgIdHdr) != "event-1" ||
		m.Header.Get("Bidradar-Original-Subject") != "" {
		t.Fatalf("replayed %s %q %v", m.Subject, m.Data, m.Header)
	}
}
