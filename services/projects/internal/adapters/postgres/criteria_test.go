package postgres_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"bidradar/services/projects/internal/adapters/postgres"
)

// TestRefreshClaimIsExclusive: replicas racing for one project's refresh
// get exactly one winner; a release restores the previous time.
func TestRefreshClaimIsExclusive(t *testing.T) {
	pool, _ := setup(t)
	ctx := context.Background()
	s := postgres.NewCriteriaStore(pool)
	now := time.Date(2026, 10, 1, 9, 0, 0, 0, time.UTC)
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s2 := postgres.NewCriteriaStore(pool)
			ok, _, _, err := s2.Claim(ctx, "69099693138", now, 10*time.Minute)
			if err != nil {
				t.Error(err)
			}
			if ok {
				wins.Add(1)
			}
		}()
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("%d winners", wins.Load())
	}
	ok, last, _, err := s.Claim(ctx, "69099693138", now.Add(9*time.Minute), 10*time.Minute)
	if err != nil || ok || !last.Equal(now) {
		t.Fatalf("within cooldown: %v %v %v", ok, last, err)
	}
	later := now.Add(10 * time.Minute)
	ok, _, prev, err := s.Claim(ctx, "69099693138", later, 10*time.Minute)
	if err != nil || !ok || !prev.Equal(now) {
		t.Fatalf("after cooldown: %v %v %v", ok, prev, err)
	}
	if err := s.Release(ctx, "69099693138", later, prev); err != nil {
		t.Fatal(err)
	}
	ok, _, prev, err = s.Claim(ctx, "69099693138", later, 10*time.Minute)
	if err != nil || !ok || !prev.Equal(now) {
		t.Fatalf("after release: %v %v %v", ok, prev, err)
	}
}
