package app_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"bidradar/services/projects/internal/app"
	"bidradar/services/projects/internal/domain"
)

type memRepo struct {
	domain.ProjectRepository
	mu  sync.Mutex
	got []domain.Project
	// inFlight counts concurrent Upserts per project id.
	inFlight map[string]int
	overlap  bool
	meet     bool
	calls    int
	together chan struct{} // closed when the second batch arrives
}

func (m *memRepo) Upsert(_ context.Context, _ int64, obs []domain.Project, _ time.Time) (domain.UpsertStats, error) {
	m.mu.Lock()
	if m.inFlight == nil {
		m.inFlight = map[string]int{}
	}
	ids := map[string]bool{}
	for _, o := range obs {
		ids[o.ID] = true
	}
	for id := range ids {
		if m.inFlight[id]++; m.inFlight[id] > 1 {
			m.overlap = true
		}
	}
	// With meet, the first two batches wait for each other, so two upserts
	// are surely in flight at once (the workers' first batches: with the
	// ids shared between workers they would overlap).
	m.calls++
	first := m.meet && m.calls <= 2
	if m.together == nil {
		m.together = make(chan struct{})
	}
	if m.calls == 2 {
		close(m.together)
	}
	together := m.together
	m.mu.Unlock()
	if first {
		select {
		case <-together:
		case <-time.After(5 * time.Second):
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for id := range ids {
		m.inFlight[id]--
	}
	m.got = append(m.got, obs...)
	return domain.UpsertStats{Seen: len(obs), Created: len(obs)}, nil
}

type memRuns struct{ finished []domain.IngestRun }

func (m *memRuns) StartRun(context.Context, string, string, time.Time) (int64, error) { return 7, nil }
func (m *memRuns) FinishRun(_ context.Context, r domain.IngestRun) error {
	m.finished = append(m.finished, r)
	return nil
}
func (m *memRuns) ListRuns(context.Context, int) ([]domain.IngestRun, error) { return nil, nil }

type src struct{ n int }

func (s src) Name() string { return "test" }
func (s src) Each(ctx context.Context, fn func(domain.Project) error, onErr func(domain.RecordError)) error {
	for i := 0; i < s.n; i++ {
		if err := fn(domain.Project{ID: "69099700011"}); err != nil {
			return err
		}
	}
	onErr(domain.RecordError{Line: 3, Err: errors.New("bad row")})
	return nil
}

func TestIngestRecordsRun(t *testing.T) {
	t.Parallel()
	repo, runs := &memRepo{}, &memRuns{}
	a, err := app.New(repo, runs, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	var progress []int
	run, err := a.Ingest(context.Background(), src{n: 2500}, "file.csv", func(n int) { progress = append(progress, n) })
	if err != nil {
		t.Fatal(err)
	}
	if len(repo.got) != 2500 || run.Stats.Created != 2500 || run.Errors != 1 || run.Status != "succeeded" || run.ID != 7 {
		t.Fatalf("run %+v", run)
	}
	if len(progress) != 3 || progress[2] != 2500 || len(runs.finished) != 1 {
		t.Fatalf("progress %v finished %d", progress, len(runs.finished))
	}
}

// manyIDs yields 1 000 ids three times over, numbering the observations.
type manyIDs struct{}

func (manyIDs) Name() string { return "many" }
func (manyIDs) Each(ctx context.Context, fn func(domain.Project) error, _ func(domain.RecordError)) error {
	for round := 0; round < 3; round++ {
		for i := 0; i < 1000; i++ {
			if err := fn(domain.Project{ID: strconv.Itoa(69000000000 + i), Name: strconv.Itoa(round)}); err != nil {
				return err
			}
		}
	}
	return nil
}

// Batches are upserted concurrently, but a project's observations are
// never in two concurrent batches and arrive in file order.
func TestIngestWorkersKeepProjectOrder(t *testing.T) {
	t.Parallel()
	repo := &memRepo{meet: true}
	a, err := app.New(repo, &memRuns{}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	run, err := a.Ingest(context.Background(), manyIDs{}, "many", nil)
	if err != nil {
		t.Fatal(err)
	}
	if run.Stats.Seen != 3000 || len(repo.got) != 3000 || repo.overlap {
		t.Fatalf("seen %d, got %d, overlap %v", run.Stats.Seen, len(repo.got), repo.overlap)
	}
	next := map[string]int{}
	for _, p := range repo.got {
		if want := strconv.Itoa(next[p.ID]); p.Name != want {
			t.Fatalf("%s: observation %s before %s", p.ID, p.Name, want)
		}
		next[p.ID]++
	}
}

// failingRepo refuses every batch.
type failingRepo struct{ domain.ProjectRepository }

func (failingRepo) Upsert(context.Context, int64, []domain.Project, time.Time) (domain.UpsertStats, error) {
	return domain.UpsertStats{}, errors.New("disk full")
}

// counting yields up to n observations, counting those read.
type counting struct {
	n    int
	read *int
}

func (counting) Name() string { return "counting" }
func (c counting) Each(ctx context.Context, fn func(domain.Project) error, _ func(domain.RecordError)) error {
	for i := 0; i < c.n; i++ {
		*c.read++
		if err := fn(domain.Project{ID: strconv.Itoa(69000000000 + i%5000)}); err != nil {
			return err
		}
	}
	return nil
}

// A batch the repository refuses fails the run: the reading stops, and the
// run is recorded as failed with the refusal.
func TestIngestFailedUpsertStopsTheRun(t *testing.T) {
	t.Parallel()
	runs := &memRuns{}
	a, err := app.New(failingRepo{}, runs, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	read := 0
	run, err := a.Ingest(context.Background(), counting{n: 1_000_000, read: &read}, "big.csv", nil)
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("err %v, want the refusal", err)
	}
	if run.Status != "failed" || run.Errors != 1 || len(run.ErrorLog) != 1 || !strings.Contains(run.ErrorLog[0], "disk full") {
		t.Fatalf("run %+v", run)
	}
	if len(runs.finished) != 1 || runs.finished[0].Status != "failed" {
		t.Fatalf("recorded %+v", runs.finished)
	}
	if read == 1_000_000 {
		t.Fatal("the whole source was read after the first batch failed")
	}
}
