package postgres_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"bidradar/pkg/apperr"
	"bidradar/pkg/testutil/pgtest"
	"bidradar/services/notification/internal/adapters/postgres"
	"bidradar/services/notification/internal/domain"
	"bidradar/services/notification/notificationsvc"
)

// An account's calls are counted within a sliding window: the call over the
// limit waits until the oldest counted one leaves it; accounts and actions
// are counted apart; concurrent calls cannot slip under the limit together.
func TestTakeRate(t *testing.T) {
	pool, err := notificationsvc.Open(context.Background(), pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	s := postgres.New(pool)
	ctx := context.Background()
	l := domain.RateLimit{Action: "test", Max: 3, Window: time.Minute, Err: apperr.New(apperr.ResourceExhausted, "x", "x")}
	t0 := time.Date(2026, 11, 25, 3, 0, 0, 0, time.UTC)
	for i, at := range []time.Duration{0, 10 * time.Second, 20 * time.Second} {
		if wait, err := s.TakeRate(ctx, ann, l, t0.Add(at)); err != nil || wait != 0 {
			t.Fatalf("call %d: wait %s, %v", i+1, wait, err)
		}
	}
	if wait, err := s.TakeRate(ctx, ann, l, t0.Add(30*time.Second)); err != nil || wait != 30*time.Second {
		t.Fatalf("the 4th call: wait %s, %v; want 30s (the first leaves the window at 1m)", wait, err)
	}
	if wait, _ := s.TakeRate(ctx, bob, l, t0.Add(30*time.Second)); wait != 0 {
		t.Fatal("another account waits")
	}
	other := l
	other.Action = "webhook"
	if wait, _ := s.TakeRate(ctx, ann, other, t0.Add(30*time.Second)); wait != 0 {
		t.Fatal("another action waits")
	}
	if wait, _ := s.TakeRate(ctx, ann, l, t0.Add(time.Minute+time.Second)); wait != 0 {
		t.Fatal("still refused once the first call left the window")
	}

	var taken atomic.Int32
	var wg sync.WaitGroup
	burst := t0.Add(time.Hour)
	for range 20 {
		wg.Go(func() {
			if wait, err := s.TakeRate(ctx, bob, l, burst); err == nil && wait == 0 {
				taken.Add(1)
			}
		})
	}
	wg.Wait()
	if taken.Load() != 3 {
		t.Fatalf("%d of 20 concurrent calls taken, want 3", taken.Load())
	}

	if err := s.DeleteUser(ctx, bob); err != nil {
		t.Fatal(err)
	}
	if n := count(t, pool, `SELECT count(*) FROM rate_events WHERE user_id = $1`, bob); n != 0 {
		t.Fatalf("%d rate rows kept of a deleted account", n)
	}
}
