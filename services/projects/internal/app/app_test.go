package app_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"bidradar/services/projects/internal/app"
	"bidradar/services/projects/internal/domain"
)

type memRepo struct {
	domain.ProjectRepository
	got []domain.Project
}

func (m *memRepo) Upsert(_ context.Context, _ int64, obs []domain.Project, _ time.Time) (domain.UpsertStats, error) {
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
