package postgres_test

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	projectsv1 "bidradar/gen/projects/v1"
	"bidradar/services/projects/internal/adapters/eventproto"
	"bidradar/services/projects/internal/adapters/postgres"
	"bidradar/services/projects/internal/app"
	"bidradar/services/projects/internal/domain"
)

// TestDeadlineRemindersOnce: from 08:00 Bangkok the day before a project's
// bid submission or hearing date, one reminder event per project, kind and
// date, however often (and on however many replicas) the job runs; a
// project ingested later that day is reminded on the next run; a deadline
// read back survives a merge that does not name it.
func TestDeadlineRemindersOnce(t *testing.T) {
	pool, _ := setup(t)
	ctx := context.Background()
	repo := postgres.New(pool, eventproto.Encoder{}, postgres.Options{})
	date := func(d int) *time.Time { x := domain.Date(2026, 11, d); return &x }
	put := func(id, name string, submission, hearing *time.Time) {
		t.Helper()
		p := domain.Project{ID: id, Name: name, SubmissionDue: submission, HearingDue: hearing,
			Announcements: []domain.Announcement{{Type: "D0", Date: domain.Date(2026, 11, 20)}}}
		p.Derive()
		if _, err := repo.Upsert(ctx, 0, []domain.Project{p}, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	put("69000000001", "ก่อสร้างสะพาน", date(26), date(27))
	put("69000000002", "ซื้อรถบรรทุก", nil, date(26))
	put("69000000003", "จ้างเหมาทำความสะอาด", date(28), nil)
	// A later observation without dates keeps them.
	put("69000000001", "ก่อสร้างสะพาน", nil, nil)
	if p, err := repo.Get(ctx, "69000000001"); err != nil || p.SubmissionDue == nil || !p.SubmissionDue.Equal(*date(26)) || p.HearingDue == nil || !p.HearingDue.Equal(*date(27)) {
		t.Fatalf("stored deadlines: %+v %v", p, err)
	}

	reminders := func() []string {
		t.Helper()
		var out []string
		for _, e := range storedOn(t, pool, &projectsv1.DeadlineApproaching{}) {
			var m projectsv1.DeadlineApproaching
			if err := proto.Unmarshal(e.Payload, &m); err != nil {
				t.Fatal(err)
			}
			out = append(out, m.ProjectId+" "+m.Kind+" "+m.Date+" "+m.ProjectName)
		}
		return out
	}
	clk := &clock{t: time.Date(2026, 11, 25, 7, 59, 0, 0, domain.Bangkok)}
	job := app.NewDeadlines(repo, slog.New(slog.NewTextHandler(io.Discard, nil)), clk.now)
	if n, err := job.RemindDue(ctx); err != nil || n != 0 {
		t.Fatalf("before 08:00: %d %v", n, err)
	}
	clk.set(time.Date(2026, 11, 25, 8, 0, 0, 0, domain.Bangkok))
	var wg sync.WaitGroup
	for range 4 { // replicas at once
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := job.RemindDue(ctx); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	want := []string{"69000000001 submission 2026-11-26 ก่อสร้างสะพาน", "69000000002 hearing 2026-11-26 ซื้อรถบรรทุก"}
	if got := reminders(); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("reminders %v, want %v", got, want)
	}
	// Later that day: a new project due tomorrow; the others are not reminded again.
	put("69000000004", "ซ่อมถนน", date(26), nil)
	clk.set(time.Date(2026, 11, 25, 15, 0, 0, 0, domain.Bangkok))
	if n, err := job.RemindDue(ctx); err != nil || n != 1 {
		t.Fatalf("later run: %d %v", n, err)
	}
	// The next day: tomorrow's hearing.
	clk.set(time.Date(2026, 11, 26, 9, 0, 0, 0, domain.Bangkok))
	if n, err := job.RemindDue(ctx); err != nil || n != 1 {
		t.Fatalf("next day: %d %v", n, err)
	}
	if got := reminders(); len(got) != 4 || got[3] != "69000000001 hearing 2026-11-27 ก่อสร้างสะพาน" {
		t.Fatalf("reminders %v", got)
	}
}
