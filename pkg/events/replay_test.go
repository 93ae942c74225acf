package events_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"bidradar/pkg/events"
	"bidradar/pkg/testutil/natstest"
)

// A dead letter replayed reaches its consumer again with its event id, and
// leaves the dead letters; one of another consumer stays; one still inside
// the duplicate window is kept for a later run instead of being dropped.
func TestReplayDeadLetters(t *testing.T) {
	ctx := context.Background()
	nc, js, err := events.Connect(natstest.Start(t), t.Name())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	// A short duplicate window, so the test can wait it out.
	if _, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: "PROJECTS", Subjects: []string{"projects.>"},
		Duplicates: 500 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	if err := events.EnsureStream(ctx, js, events.StreamDeadLetter, []string{events.DeadLetterPrefix + ".>"}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	broken := true // the downstream the handler needs is down
	handled := map[string][]string{}
	handler := func(name string) events.Handler {
		return func(ctx context.Context, subject, eventID string, data []byte) error {
			mu.Lock()
			defer mu.Unlock()
			if broken && eventID != "fine" {
				return fmt.Errorf("downstream: %w", events.ErrPermanent)
			}
			handled[name] = append(handled[name], subject+" "+eventID+" "+string(data))
			return nil
		}
	}
	for _, durable := range []string{"notification-projects", "other"} {
		stop, err := events.Consume(ctx, js, "PROJECTS", durable, []string{"projects.v1.x"}, handler(durable), quiet)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(stop)
	}
	for _, id := range []string{"a", "fine", "b"} {
		if err := events.Publish(ctx, js, "projects.v1.x", id, []byte("payload "+id)); err != nil {
			t.Fatal(err)
		}
	}
	dl, err := js.Stream(ctx, events.StreamDeadLetter)
	if err != nil {
		t.Fatal(err)
	}
	deadLetters := func() uint64 {
		si, err := dl.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return si.State.Msgs
	}
	waitFor(t, func() bool { return deadLetters() == 4 }) // a and b, for each consumer

	// At once: still inside the duplicate window, kept.
	st, err := events.ReplayDeadLetters(ctx, js, "PROJECTS", "notification-projects")
	if err != nil || st != (events.ReplayStats{Kept: 2}) {
		t.Fatalf("replay inside the window: %+v, %v", st, err)
	}
	if n := deadLetters(); n != 4 {
		t.Fatalf("%d dead letters after a replay inside the window, want 4", n)
	}

	time.Sleep(600 * time.Millisecond)
	mu.Lock()
	broken = false
	mu.Unlock()
	st, err = events.ReplayDeadLetters(ctx, js, "PROJECTS", "notification-projects")
	if err != nil || st != (events.ReplayStats{Replayed: 2}) {
		t.Fatalf("replay: %+v, %v", st, err)
	}
	waitFor(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(handled["notification-projects"]) == 3 && len(handled["other"]) == 3
	})
	mu.Lock()
	got := fmt.Sprint(handled["notification-projects"])
	mu.Unlock()
	if want := "[projects.v1.x fine payload fine projects.v1.x a payload a projects.v1.x b payload b]"; got != want {
		t.Fatalf("handled %s, want %s", got, want)
	}
	// The other consumer's dead letters stay (it got a and b again from
	// the stream, as every consumer of the subject does).
	if n := deadLetters(); n != 2 {
		t.Fatalf("%d dead letters left, want the other consumer's 2", n)
	}
	if st, err := events.ReplayDeadLetters(ctx, js, "PROJECTS", "notification-projects"); err != nil || st != (events.ReplayStats{}) {
		t.Fatalf("nothing left to replay: %+v, %v", st, err)
	}
	for _, bad := range [][2]string{{"", "x"}, {"PROJECTS", ""}, {"PROJECTS", "a.b"}, {"PROJ*", "x"}} {
		if _, err := events.ReplayDeadLetters(ctx, js, bad[0], bad[1]); err == nil {
			t.Errorf("replay %q %q: no error", bad[0], bad[1])
		}
	}
}
