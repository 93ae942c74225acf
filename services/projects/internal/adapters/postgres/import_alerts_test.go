package postgres_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	projectsv1 "bidradar/gen/projects/v1"
	"bidradar/services/projects/internal/adapters/eventproto"
	"bidradar/services/projects/internal/adapters/postgres"
	"bidradar/services/projects/internal/app"
	"bidradar/services/projects/internal/domain"
)

// An import's batches hold their alerts until the run finishes, and then
// each user is told once (docs/product.md#instant-alerts): a user matched
// by several projects of the import, by several searches, in several
// batches, gets one import.matched naming every project; a user matched by
// one project gets that project's project.matched; the same import again
// tells nothing; old data (announced or closed more than 7 days before)
// tells nobody.
func TestImportTellsEachUserOnce(t *testing.T) {
	pool, _ := setup(t)
	ctx := context.Background()
	store := postgres.NewCriteriaStore(pool)
	repo := postgres.New(pool, eventproto.Encoder{}, postgres.Options{})
	repo.SetInstantAlerts(app.NewAlerts(store))
	save := func(user, word string) {
		t.Helper()
		if _, err := store.SaveCriteria(ctx, domain.SavedCriteria{UserID: user, Name: word, SearchType: domain.SearchNormal,
			Form: domain.SearchForm{AllOf: []string{word}}, CreatedAt: time.Now()}, nil); err != nil {
			t.Fatal(err)
		}
	}
	const ann, bee = "00000000-0000-4000-8000-00000000000a", "00000000-0000-4000-8000-00000000000b"
	save(ann, "ถนน")
	save(ann, "สะพาน")
	save(bee, "อาคาร")
	newEvents := eventsSince(t, pool)
	alerts := func() (grouped map[string][]string, single []string) {
		t.Helper()
		grouped = map[string][]string{}
		for _, e := range newEvents() {
			switch e.Subject {
			case subjectOf(t, &projectsv1.ImportMatched{}):
				var m projectsv1.ImportMatched
				if err := proto.Unmarshal(e.Payload, &m); err != nil {
					t.Fatal(err)
				}
				if m.UserId != "" || len(m.Users) == 0 {
					t.Fatalf("import.matched of no users, or in the one-user form: %v", &m)
				}
				for _, u := range m.Users {
					if len(grouped[u.UserId]) > 0 {
						t.Fatalf("a second import.matched for %s", u.UserId)
					}
					grouped[u.UserId] = u.ProjectIds
				}
				if len(m.Projects) == 0 || m.Projects[0].ProjectName == "" {
					t.Fatalf("import.matched names no project: %v", &m)
				}
			case subjectOf(t, &projectsv1.ProjectMatched{}):
				var m projectsv1.ProjectMatched
				if err := proto.Unmarshal(e.Payload, &m); err != nil {
					t.Fatal(err)
				}
				single = append(single, m.Project.ProjectId)
			}
		}
		return grouped, single
	}
	now := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	project := func(id, name string, announced time.Time) domain.Project {
		p := domain.Project{ID: id, Name: name, Announcements: []domain.Announcement{{Type: "D0", Date: announced}}}
		p.Derive()
		return p
	}
	fresh := now.Add(-24 * time.Hour)
	importRun := func(batches ...[]domain.Project) {
		t.Helper()
		id, err := repo.StartRun(ctx, "test", "import", now)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range batches {
			if _, err := repo.Upsert(ctx, id, b, now); err != nil {
				t.Fatal(err)
			}
			// Held until the run finishes.
			if g, s := alerts(); len(g)+len(s) != 0 {
				t.Fatalf("told before the run finished: %v %v", g, s)
			}
		}
		if err := repo.FinishRun(ctx, domain.IngestRun{ID: id, Status: "succeeded", StartedAt: now, FinishedAt: now}); err != nil {
			t.Fatal(err)
		}
	}
	batch1 := []domain.Project{
		project("69000000001", "ก่อสร้างถนนคอนกรีต", fresh),
		project("69000000002", "ก่อสร้างสะพานข้ามคลอง", fresh),
		project("69000000003", "ก่อสร้างอาคารเรียน", fresh),
	}
	batch2 := []domain.Project{
		project("69000000004", "ซ่อมถนนและสะพาน", fresh), // two of ann's searches
		project("69000000005", "จัดซื้อวัสดุ", fresh),    // nobody's
	}
	importRun(batch1, batch2)
	grouped, single := alerts()
	if len(grouped) != 1 || !slices.Equal(grouped[ann], []string{"69000000001", "69000000002", "69000000004"}) ||
		!slices.Equal(single, []string{"69000000003"}) {
		t.Fatalf("grouped %v, single %v", grouped, single)
	}
	// The same import again: told already.
	importRun(batch1, batch2)
	if g, s := alerts(); len(g)+len(s) != 0 {
		t.Fatalf("replay told %v %v", g, s)
	}
	// Old data: announced, or closed, more than 7 days before the write.
	closed := project("69000000008", "ก่อสร้างถนนสายเก่า", fresh)
	due := now.Add(-8 * 24 * time.Hour)
	closed.SubmissionDue = &due
	importRun([]domain.Project{
		project("69000000006", "ก่อสร้างถนนลูกรัง", now.Add(-8*24*time.Hour)),
		project("69000000007", "ก่อสร้างสะพานไม้", now.Add(-30*24*time.Hour)),
		closed,
	})
	if g, s := alerts(); len(g)+len(s) != 0 {
		t.Fatalf("old data told %v %v", g, s)
	}
	// A write outside a run (no import) tells at once, as before.
	if _, err := repo.Upsert(ctx, 0, []domain.Project{project("69000000009", "ก่อสร้างสะพานใหม่", now)}, now); err != nil {
		t.Fatal(err)
	}
	if g, s := alerts(); len(g) != 0 || !slices.Equal(s, []string{"69000000009"}) {
		t.Fatalf("a single write: %v %v", g, s)
	}
	var held int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM import_matches`).Scan(&held); err != nil || held != 0 {
		t.Fatalf("%d held matches left (%v)", held, err)
	}
}
