package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"bidradar/services/projects/internal/domain"
)

// memOvernight is an OvernightStore in memory whose RecordDigests notes
// how many calls run at once and may fail one batch.
type memOvernight struct {
	saved    []domain.SavedCriteria
	projects []domain.Project
	failAt   int // the call that fails (1-based), 0: none

	mu        sync.Mutex
	calls     int
	inFlight  int
	maxFlight int
	told      map[string]int // search id → digests written
	together  chan struct{}  // closed once the first writers are all in flight
}

func (m *memOvernight) ClaimOvernight(_ context.Context, day, _ time.Time, _ time.Duration, _ bool) (time.Time, time.Time, bool, error) {
	return day.Add(-24 * time.Hour), day, true, nil
}
func (m *memOvernight) RenewOvernight(context.Context, time.Time, time.Time) error   { return nil }
func (m *memOvernight) FinishOvernight(context.Context, domain.OvernightStats) error { return nil }
func (m *memOvernight) OvernightCriteria(context.Context) ([]domain.SavedCriteria, error) {
	return m.saved, nil
}
func (m *memOvernight) FirstSeen(_ context.Context, _, _, _ time.Time, afterID string, limit int) ([]domain.Project, error) {
	var out []domain.Project
	for _, p := range m.projects {
		if p.ID > afterID && len(out) < limit {
			out = append(out, p)
		}
	}
	return out, nil
}

func (m *memOvernight) RecordDigests(ctx context.Context, ds []domain.OvernightDigest, _ time.Time) (int, error) {
	m.mu.Lock()
	m.calls++
	call := m.calls
	m.inFlight++
	m.maxFlight = max(m.maxFlight, m.inFlight)
	if m.together == nil {
		m.together = make(chan struct{})
	}
	if m.inFlight == overnightWriters && call <= overnightWriters {
		close(m.together)
	}
	together := m.together
	m.mu.Unlock()
	if call <= overnightWriters {
		// The first writers wait for each other: they are in flight at once
		// (or the run has fewer writers, and the count says so).
		select {
		case <-together:
		case <-time.After(5 * time.Second):
		}
	}
	if m.failAt > 0 && call > m.failAt {
		// A batch begun before the failure was seen ends after it: the
		// failure has cancelled the run's context.
		select {
		case <-ctx.Done():
		case <-time.After(5 * time.Second):
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.inFlight--
	if call == m.failAt {
		return 0, errors.New("database gone")
	}
	for _, d := range ds {
		m.told[d.Criteria.ID]++
	}
	return len(ds), nil
}

// The digests are written by two transactions at once, every search's
// once, and the run's count is theirs; a failed batch fails the run.
func TestOvernightWritesDigestsTwoAtATime(t *testing.T) {
	store := &memOvernight{told: map[string]int{}}
	for i := range 23 {
		store.saved = append(store.saved, domain.SavedCriteria{ID: fmt.Sprintf("00000000-0000-4000-8000-%012d", i), UserID: "u1",
			SearchType: domain.SearchOvernight, Form: domain.SearchForm{AllOf: []string{"สะพาน"}}})
	}
	p := domain.Project{ID: "69000000001", Name: "ก่อสร้างสะพานข้ามคลอง"}
	p.Derive()
	store.projects = []domain.Project{p}
	now := func() time.Time { return time.Date(2026, 11, 26, 2, 0, 0, 0, domain.Bangkok) }
	o := NewOvernight(store, slog.New(slog.NewTextHandler(io.Discard, nil)), now)
	o.batch = 3 // 8 batches
	st, err := o.RunNow(context.Background())
	if err != nil || st.Digests != 23 || st.Criteria != 23 {
		t.Fatalf("run: %+v %v", st, err)
	}
	if store.calls != 8 || store.maxFlight != overnightWriters || len(store.told) != 23 {
		t.Fatalf("%d calls, at most %d at once, %d searches told", store.calls, store.maxFlight, len(store.told))
	}
	for id, n := range store.told {
		if n != 1 {
			t.Fatalf("%s told %d times", id, n)
		}
	}

	failing := &memOvernight{saved: store.saved, projects: store.projects, failAt: 2, told: map[string]int{}}
	o = NewOvernight(failing, slog.New(slog.NewTextHandler(io.Discard, nil)), now)
	o.batch = 3
	if _, err := o.RunNow(context.Background()); err == nil || err.Error() != "database gone" {
		t.Fatalf("a failed batch: %v", err)
	}
	if failing.calls > 4 {
		t.Fatalf("%d batches written after one failed, want the run stopped", failing.calls)
	}
}
