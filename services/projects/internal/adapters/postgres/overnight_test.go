package postgres_test

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	projectsv1 "bidradar/gen/projects/v1"
	"bidradar/services/projects/internal/adapters/eventproto"
	"bidradar/services/projects/internal/adapters/postgres"
	"bidradar/services/projects/internal/app"
	"bidradar/services/projects/internal/domain"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

// TestOvernightRunOncePerDay: at 02:00 Bangkok each overnight search runs
// over the projects first seen in the last 24 hours and writes one digest
// event naming them; running again the same day (scheduled or "run now")
// writes nothing more; normal searches and older projects take no part; a
// run held by a crashed replica is resumed after its lease, over its own
// window; racing replicas run a day once.
func TestOvernightRunOncePerDay(t *testing.T) {
	pool, _ := setup(t)
	ctx := context.Background()
	repo := postgres.New(pool, eventproto.Encoder{}, postgres.Options{})
	store := postgres.NewCriteriaStore(pool)
	bkk := func(d, h, m int) time.Time { return time.Date(2026, 11, d, h, m, 0, 0, domain.Bangkok) }

	save := func(kind string, f domain.SearchForm) domain.SavedCriteria {
		t.Helper()
		c, err := store.SaveCriteria(ctx, domain.SavedCriteria{UserID: "11111111-1111-4111-8111-111111111111", Name: "สะพาน " + kind, SearchType: kind, Form: f, CreatedAt: bkk(20, 9, 0)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	night := save(domain.SearchOvernight, domain.SearchForm{AllOf: []string{"สะพาน"}})
	save(domain.SearchNormal, domain.SearchForm{AllOf: []string{"สะพาน"}})
	save(domain.SearchOvernight, domain.SearchForm{AllOf: []string{"ไม่มีโครงการไหนมีคำนี้"}})

	upsert := func(at time.Time, id, name string) {
		t.Helper()
		budget := domain.Money(450000000)
		p := domain.Project{ID: id, Name: name, AgencyName: "กรมทางหลวงชนบท", Budget: &budget,
			Announcements: []domain.Announcement{{Type: "D0", Date: domain.Date(2026, 11, 20)}}}
		p.Derive()
		if _, err := repo.Upsert(ctx, 0, []domain.Project{p}, at); err != nil {
			t.Fatal(err)
		}
	}
	upsert(bkk(22, 10, 0), "69000000001", "ก่อสร้างสะพานเก่า")      // first seen three days before
	upsert(bkk(24, 10, 0), "69000000002", "ก่อสร้างสะพานข้ามคลอง")  // in the window
	upsert(bkk(24, 23, 0), "69000000003", "ซื้อวัสดุสำนักงาน")      // in the window, no match
	upsert(bkk(25, 1, 0), "69000000004", "ซ่อมสะพานไม้ หมู่ 3")     // in the window
	upsert(bkk(25, 3, 0), "69000000005", "ก่อสร้างสะพานหลังการรัน") // after the run

	digests := func() []*projectsv1.CriteriaMatched {
		t.Helper()
		var out []*projectsv1.CriteriaMatched
		for _, e := range storedOn(t, pool, &projectsv1.CriteriaMatched{}) {
			var m projectsv1.CriteriaMatched
			if err := proto.Unmarshal(e.Payload, &m); err != nil {
				t.Fatal(err)
			}
			if m.EventId != e.ID {
				t.Fatalf("event id %s in payload, %s in outbox", m.EventId, e.ID)
			}
			out = append(out, &m)
		}
		return out
	}

	clk := &clock{t: bkk(25, 1, 59)}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	o := app.NewOvernight(repo, log, clk.now)
	if ran, err := o.RunDue(ctx); err != nil || ran {
		t.Fatalf("before 02:00: ran %v %v", ran, err)
	}
	clk.set(bkk(25, 2, 0))
	if ran, err := o.RunDue(ctx); err != nil || !ran {
		t.Fatalf("at 02:00: ran %v %v", ran, err)
	}
	ds := digests()
	if len(ds) != 1 {
		t.Fatalf("%d digests, want 1: %v", len(ds), ds)
	}
	d := ds[0]
	day := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	if d.CriteriaId != night.ID || d.RunKey != "2026-11-25" || d.ProjectCount != 2 || d.EventId != domain.OvernightEventID(night.ID, day) ||
		len(d.Projects) != 2 || d.Projects[0].ProjectId != "69000000002" || d.Projects[1].ProjectId != "69000000004" ||
		d.Projects[0].GetBudgetSatang() != 450000000 || d.Projects[0].AgencyName != "กรมทางหลวงชนบท" {
		t.Fatalf("digest %v", d)
	}

	// Again the same day: scheduled (done) and run now (nothing new).
	clk.set(bkk(25, 4, 0))
	if ran, err := o.RunDue(ctx); err != nil || ran {
		t.Fatalf("scheduled again: ran %v %v", ran, err)
	}
	st, err := o.RunNow(ctx)
	if err != nil || st.Criteria != 2 || st.Digests != 0 || st.ProjectsSeen != 4 {
		t.Fatalf("run now: %+v %v", st, err)
	}
	if n := len(digests()); n != 1 {
		t.Fatalf("after run now: %d digests", n)
	}

	// Next day: a replica claims the run and dies. Others wait for its
	// lease, then one resumes it over the window it claimed.
	crashAt := bkk(26, 2, 0)
	if _, _, ok, err := repo.ClaimOvernight(ctx, day.AddDate(0, 0, 1), crashAt, app.OvernightLease, false); err != nil || !ok {
		t.Fatalf("claim: %v %v", ok, err)
	}
	upsert(bkk(26, 2, 30), "69000000006", "สะพานลอยคนข้าม") // after the claimed window
	clk.set(bkk(26, 2, 4))
	if ran, err := o.RunDue(ctx); err != nil || ran {
		t.Fatalf("while leased: ran %v %v", ran, err)
	}
	if _, err := o.RunNow(ctx); err == nil {
		t.Fatal("run now while leased: no error")
	}
	clk.set(crashAt.Add(app.OvernightLease + time.Second))
	var wins atomic.Int32
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ran, err := app.NewOvernight(repo, log, clk.now).RunDue(ctx)
			if err != nil {
				t.Error(err)
			}
			if ran {
				wins.Add(1)
			}
		}()
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("%d replicas ran the resumed run", wins.Load())
	}
	ds = digests()
	if len(ds) != 2 || ds[1].RunKey != "2026-11-26" || ds[1].ProjectCount != 1 || ds[1].Projects[0].ProjectId != "69000000005" {
		t.Fatalf("resumed run's digest: %v", ds)
	}
}
