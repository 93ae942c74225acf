package postgres_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"google.golang.org/protobuf/proto"

	projectsv1 "bidradar/gen/projects/v1"
	"bidradar/pkg/outbox"
	"bidradar/services/projects/internal/adapters/eventproto"
	"bidradar/services/projects/internal/adapters/postgres"
	"bidradar/services/projects/internal/app"
	"bidradar/services/projects/internal/domain"
)

// RecordMatches records, a row a project, the searches that alerted about
// it and tells the new ones in one project.matched event a project, all
// in one outbox row a batch; searches already told, repeated in the batch
// or deleted tell nothing.
func TestRecordMatchesOnce(t *testing.T) {
	pool, _ := setup(t)
	ctx := context.Background()
	repo := postgres.New(pool, eventproto.Encoder{}, postgres.Options{})
	store := postgres.NewCriteriaStore(pool)
	const user = searcher
	save := func(word string) *domain.SavedCriteria {
		c := saveSearch(t, store, domain.SearchNormal, word, word)
		return &c
	}
	a, b, gone := save("สะพาน"), save("ถนน"), save("ฝาย")
	if _, err := store.DeleteCriteria(ctx, user, strings.ToLower(gone.ID)); err != nil {
		t.Fatal(err)
	}
	match := func(id string, cs ...*domain.SavedCriteria) domain.ProjectMatches {
		var keys []domain.SearchKey
		for _, c := range cs {
			k, _ := c.SearchKey()
			keys = append(keys, k)
		}
		return domain.ProjectMatches{Project: &domain.Project{ID: id, Name: "โครงการ " + id}, Keys: keys}
	}
	nameOf := map[domain.SearchKey]string{} // the events carry keys only
	for _, c := range []*domain.SavedCriteria{a, b, gone} {
		k, _ := c.SearchKey()
		nameOf[k] = c.Name
	}
	newEvents := eventsSince(t, pool)
	var asOf int64            // the searches' version the last batch was matched at
	told := func() []string { // the events since the last call
		t.Helper()
		var out []string
		for _, e := range newEvents() {
			var m projectsv1.ProjectMatched
			if err := proto.Unmarshal(e.Payload, &m); err != nil || m.EventId != e.ID || e.Subject != subjectOf(t, &projectsv1.ProjectMatched{}) {
				t.Fatalf("event %s %v: %v", e.Subject, &m, err)
			}
			names := []string{m.Project.ProjectId}
			if len(m.Users) != 0 || len(m.Matches) != 0 || len(m.CriteriaKeys)%16 != 0 || m.CriteriaVersion != asOf {
				t.Fatalf("matches %v", &m)
			}
			for i := 0; i < len(m.CriteriaKeys); i += 16 {
				names = append(names, nameOf[domain.SearchKey(m.CriteriaKeys[i:i+16])])
			}
			out = append(out, strings.Join(names, " "))
		}
		return out
	}
	version, err := store.CriteriaVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	// Matched by a matcher that loaded the searches before gone was
	// deleted: the searches are read again, and gone tells nothing.
	asOf = version - 1
	n, err := repo.RecordMatches(ctx, []domain.ProjectMatches{
		match("69000000002", b, a), match("69000000001", a, gone), match("69000000002", b), match("69000000004", gone),
	}, asOf, now)
	if err != nil || n != 3 {
		t.Fatalf("first batch: %d new, %v", n, err)
	}
	if got, want := told(), []string{"69000000002 ถนน สะพาน", "69000000001 สะพาน"}; !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	asOf = version
	n, err = repo.RecordMatches(ctx, []domain.ProjectMatches{match("69000000001", a, b), match("69000000003", b), match("69000000002", a)}, asOf, now)
	if err != nil || n != 2 {
		t.Fatalf("second batch: %d new, %v", n, err)
	}
	if got, want := told(), []string{"69000000001 ถนน", "69000000003 ถนน"}; !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	if n, err := repo.RecordMatches(ctx, []domain.ProjectMatches{match("69000000001", b, a)}, version, now); err != nil || n != 0 {
		t.Fatalf("all told: %d new, %v", n, err)
	}
	var rows, pairs, outboxRows int
	if err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM project_alerts), (SELECT sum(length(told) / 16) FROM project_alerts),
		(SELECT count(*) FROM outbox)`).Scan(&rows, &pairs, &outboxRows); err != nil {
		t.Fatal(err)
	}
	if rows != 3 || pairs != 5 || outboxRows != 2 {
		t.Fatalf("%d matches of %d projects recorded in %d outbox rows, want 5 of 3 in 2", pairs, rows, outboxRows)
	}
}

// A write of projects matches the ones it creates or changes against the
// saved normal searches and tells their new matches in the same
// transaction, in the same outbox row as the projects' own events: an
// overnight search never, a search told once never again, a new search
// from the next write on.
func TestUpsertTellsItsAlerts(t *testing.T) {
	pool, _ := setup(t)
	ctx := context.Background()
	store := postgres.NewCriteriaStore(pool)
	repo := postgres.New(pool, eventproto.Encoder{}, postgres.Options{})
	repo.SetInstantAlerts(app.NewAlerts(store))
	road := saveSearch(t, store, domain.SearchNormal, "ถนน", "ถนน")
	saveSearch(t, store, domain.SearchOvernight, "สะพาน", "สะพาน")
	nameOf := map[string]string{string(road.Key[:]): road.Name}
	newEvents := eventsSince(t, pool)
	events := func() (out []string, version int64) {
		t.Helper()
		for _, e := range newEvents() {
			line := strings.TrimPrefix(e.Subject, "projects.v1.")
			if e.Subject == subjectOf(t, &projectsv1.ProjectMatched{}) {
				var m projectsv1.ProjectMatched
				if err := proto.Unmarshal(e.Payload, &m); err != nil {
					t.Fatal(err)
				}
				line += " " + m.Project.ProjectId
				for i := 0; i < len(m.CriteriaKeys); i += 16 {
					line += " " + nameOf[string(m.CriteriaKeys[i:i+16])]
				}
				version = m.CriteriaVersion
			}
			out = append(out, line)
		}
		return out, version
	}
	project := func(id, name string) domain.Project { return domain.Project{ID: id, Name: name} }
	now := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	write := func(ps ...domain.Project) domain.UpsertStats {
		t.Helper()
		st, err := repo.Upsert(ctx, 0, ps, now)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	var outboxRows int
	countRows := func() int {
		t.Helper()
		var n int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM outbox`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		defer func() { outboxRows = n }()
		return n - outboxRows
	}

	st := write(project("69000000001", "ก่อสร้างถนนคอนกรีต"), project("69000000002", "จัดซื้อสะพานเหล็ก"), project("69000000003", "ซ่อมถนนลาดยาง"))
	got, version := events()
	want := []string{"project.created", "project.created", "project.created", "project.matched 69000000001 ถนน", "project.matched 69000000003 ถนน"}
	if st.Created != 3 || st.Alerted != 2 || !slices.Equal(got, want) || countRows() != 1 {
		t.Fatalf("first write: %+v, events %v in %d outbox rows, want %v in one", st, got, outboxRows, want)
	}
	if v, err := store.CriteriaVersion(ctx); err != nil || version != v {
		t.Fatalf("matched at version %d, the searches are at %d (%v)", version, v, err)
	}
	// Changed, still matching: told already.
	st = write(project("69000000001", "ก่อสร้างถนนคอนกรีต ระยะที่ 2"))
	if got, _ := events(); st.Updated != 1 || st.Alerted != 0 || !slices.Equal(got, []string{"project.updated"}) {
		t.Fatalf("changed project: %+v, events %v", st, got)
	}
	// A new search: the next write loads it and tells it alone.
	concrete := saveSearch(t, store, domain.SearchNormal, "คอนกรีต", "คอนกรีต")
	nameOf[string(concrete.Key[:])] = concrete.Name
	st = write(project("69000000001", "ก่อสร้างถนนคอนกรีต ระยะที่ 3"), project("69000000002", "จัดซื้อสะพานเหล็ก"))
	got, version = events()
	if st.Updated != 1 || st.Unchanged != 1 || st.Alerted != 1 || !slices.Equal(got, []string{"project.updated", "project.matched 69000000001 คอนกรีต"}) {
		t.Fatalf("after a new search: %+v, events %v", st, got)
	}
	if v, err := store.CriteriaVersion(ctx); err != nil || version != v {
		t.Fatalf("matched at version %d, the searches are at %d (%v)", version, v, err)
	}
	// The same observations again: nothing written, nothing told.
	if st := write(project("69000000001", "ก่อสร้างถนนคอนกรีต ระยะที่ 3")); st.Unchanged != 1 || st.Alerted != 0 {
		t.Fatalf("replay: %+v", st)
	}
	if got, _ := events(); len(got) != 0 {
		t.Fatalf("replay: events %v", got)
	}
}

// Concurrent batches of the same projects (two replicas, or a redelivery
// beside the first delivery) tell each search and project once between
// them, also when both find the project untold and race to insert it.
func TestRecordMatchesConcurrent(t *testing.T) {
	pool, _ := setup(t)
	ctx := context.Background()
	repo := postgres.New(pool, eventproto.Encoder{}, postgres.Options{})
	store := postgres.NewCriteriaStore(pool)
	var searches []domain.SearchKey
	for i := range 30 {
		c := saveSearch(t, store, domain.SearchNormal, fmt.Sprint("s", i), fmt.Sprint("คำ", i))
		searches = append(searches, c.Key)
	}
	version, err := store.CriteriaVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	const writers, projects = 4, 20
	var wg sync.WaitGroup
	news := make([]int, writers)
	errs := make([]error, writers)
	for w := range writers {
		wg.Go(func() {
			var ms []domain.ProjectMatches
			for p := range projects {
				// Overlapping subsets, in another project order each.
				id := fmt.Sprintf("690000%05d", (p*7+w*3)%projects)
				ms = append(ms, domain.ProjectMatches{Project: &domain.Project{ID: id}, Keys: searches[w*5 : w*5+15]})
			}
			news[w], errs[w] = repo.RecordMatches(ctx, ms, version, now)
		})
	}
	wg.Wait()
	total := 0
	for w := range writers {
		if errs[w] != nil {
			t.Fatal(errs[w])
		}
		total += news[w]
	}
	// The union of the writers' searches is searches[0:30]: 30 a project.
	if want := projects * 30; total != want {
		t.Fatalf("%d new matches told, want %d", total, want)
	}
	evs, err := outbox.Stored(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	pairs := map[string]bool{}
	for _, e := range evs {
		var m projectsv1.ProjectMatched
		if err := proto.Unmarshal(e.Payload, &m); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(m.CriteriaKeys); i += 16 {
			k := m.Project.ProjectId + " " + string(m.CriteriaKeys[i:i+16])
			if pairs[k] {
				t.Fatalf("%x told twice", k)
			}
			pairs[k] = true
		}
	}
	if len(pairs) != projects*30 {
		t.Fatalf("%d pairs told, want %d", len(pairs), projects*30)
	}
}

// RecordDigests writes a batch of digests in one transaction with the
// semantics of one digest a search and day: a search already told that
// day, a deleted one and one that found nothing new (its projects told
// already) write nothing, not even a digest row, so a later batch of the
// day still tells the last one what is new; a project named twice is told
// once.
func TestRecordDigestsBatch(t *testing.T) {
	pool, _ := setup(t)
	ctx := context.Background()
	repo := postgres.New(pool, eventproto.Encoder{}, postgres.Options{})
	store := postgres.NewCriteriaStore(pool)
	const user = searcher
	save := func(word string) domain.SavedCriteria {
		return saveSearch(t, store, domain.SearchOvernight, word, word)
	}
	a, b, c, gone := save("สะพาน"), save("ถนน"), save("ฝาย"), save("ประปา")
	if _, err := store.DeleteCriteria(ctx, user, gone.ID); err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	now := time.Date(2026, 11, 24, 19, 5, 0, 0, time.UTC)
	digest := func(s domain.SavedCriteria, ids ...string) domain.OvernightDigest {
		d := domain.OvernightDigest{Criteria: s, Day: day}
		for _, id := range ids {
			d.Projects = append(d.Projects, domain.DigestProject{ID: id, Name: "โครงการ " + id})
		}
		return d
	}
	if n, err := repo.RecordDigests(ctx, []domain.OvernightDigest{digest(b, "69000000009")}, now); err != nil || n != 1 {
		t.Fatalf("earlier run: %d, %v", n, err)
	}
	// c told about 69000000001 in the digest of the day before.
	yesterday := digest(c, "69000000001")
	yesterday.Day = day.AddDate(0, 0, -1)
	if n, err := repo.RecordDigests(ctx, []domain.OvernightDigest{yesterday}, now); err != nil || n != 1 {
		t.Fatalf("told c: %d, %v", n, err)
	}
	n, err := repo.RecordDigests(ctx, []domain.OvernightDigest{
		digest(a, "69000000001", "69000000002", "69000000001"), digest(b, "69000000003"), digest(c, "69000000001"), digest(gone, "69000000001"),
	}, now)
	if err != nil || n != 1 {
		t.Fatalf("batch: %d written, %v", n, err)
	}
	n, err = repo.RecordDigests(ctx, []domain.OvernightDigest{digest(c, "69000000001", "69000000004")}, now)
	if err != nil || n != 1 {
		t.Fatalf("c later: %d written, %v", n, err)
	}
	evs, err := outbox.Stored(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range evs {
		var m projectsv1.CriteriaMatched
		if err := proto.Unmarshal(e.Payload, &m); err != nil || m.EventId != e.ID {
			t.Fatalf("event %v: %v", &m, err)
		}
		if m.RunKey != day.Format(time.DateOnly) {
			continue // c's digest of the day before
		}
		if m.EventId != domain.OvernightEventID(m.CriteriaId, day) || int(m.ProjectCount) != len(m.ProjectIds) {
			t.Fatalf("digest %v", &m)
		}
		got = append(got, m.CriteriaName+" "+strings.Join(m.ProjectIds, ","))
	}
	want := []string{"ถนน 69000000009", "สะพาน 69000000001,69000000002", "ฝาย 69000000004"}
	if !slices.Equal(got, want) {
		t.Fatalf("digests %v, want %v", got, want)
	}
	rows, err := pool.Query(ctx, `SELECT c.name, d.projects FROM overnight_digests d JOIN search_criteria c ON c.id = d.criteria_id ORDER BY d.created_at, c.name`)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Name     string
		Projects int
	}
	stored, err := pgx.CollectRows(rows, pgx.RowToStructByPos[row])
	if err != nil {
		t.Fatal(err)
	}
	if want := []row{{"ถนน", 1}, {"ฝาย", 1}, {"ฝาย", 1}, {"สะพาน", 2}}; !slices.Equal(stored, want) {
		t.Fatalf("digest rows %v, want %v", stored, want)
	}
}

// A search switched between instant and overnight alerts tells each
// project once across both: its digests leave out what it alerted about
// instantly, its instant alerts what its digests named, and a search no
// longer overnight gets no digest from a run that loaded it before.
func TestSwitchedSearchTellsOnce(t *testing.T) {
	pool, _ := setup(t)
	ctx := context.Background()
	repo := postgres.New(pool, eventproto.Encoder{}, postgres.Options{})
	store := postgres.NewCriteriaStore(pool)
	now := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	day := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	newEvents := eventsSince(t, pool)
	told := func() []string { // project ids of the events since the last call
		t.Helper()
		var out []string
		for _, e := range newEvents() {
			switch e.Subject {
			case subjectOf(t, &projectsv1.ProjectMatched{}):
				var m projectsv1.ProjectMatched
				if err := proto.Unmarshal(e.Payload, &m); err != nil {
					t.Fatal(err)
				}
				out = append(out, "instant "+m.Project.ProjectId)
			default:
				var m projectsv1.CriteriaMatched
				if err := proto.Unmarshal(e.Payload, &m); err != nil {
					t.Fatal(err)
				}
				out = append(out, "digest "+strings.Join(m.ProjectIds, ","))
			}
		}
		return out
	}
	instant := func(c domain.SavedCriteria, ids ...string) {
		t.Helper()
		k, _ := c.SearchKey()
		var ms []domain.ProjectMatches
		for _, id := range ids {
			ms = append(ms, domain.ProjectMatches{Project: &domain.Project{ID: id, Name: id}, Keys: []domain.SearchKey{k}})
		}
		v, err := store.CriteriaVersion(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := repo.RecordMatches(ctx, ms, v, now); err != nil {
			t.Fatal(err)
		}
	}
	digest := func(c domain.SavedCriteria, ids ...string) {
		t.Helper()
		d := domain.OvernightDigest{Criteria: c, Day: day}
		for _, id := range ids {
			d.Projects = append(d.Projects, domain.DigestProject{ID: id, Name: id})
		}
		if _, err := repo.RecordDigests(ctx, []domain.OvernightDigest{d}, now); err != nil {
			t.Fatal(err)
		}
		day = day.AddDate(0, 0, 1)
	}
	switchTo := func(c domain.SavedCriteria, to string) domain.SavedCriteria {
		t.Helper()
		was := c.SearchType
		c.SearchType = to
		out, err := store.UpdateCriteria(ctx, c, was, nil)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	expect := func(step string, want ...string) {
		t.Helper()
		if got := told(); !slices.Equal(got, want) {
			t.Fatalf("%s: told %v, want %v", step, got, want)
		}
	}

	a := saveSearch(t, store, domain.SearchNormal, "a", "สะพาน")
	instant(a, "69000000001")
	expect("a instant", "instant 69000000001")
	wasInstant := func(c domain.SavedCriteria) bool {
		t.Helper()
		var was bool
		if err := pool.QueryRow(ctx, `SELECT was_instant FROM search_criteria WHERE id = $1`, c.ID).Scan(&was); err != nil {
			t.Fatal(err)
		}
		return was
	}
	stale := a // as a run that loaded it before the switch holds it
	a = switchTo(a, domain.SearchOvernight)
	if !wasInstant(a) {
		t.Fatal("a switched to overnight is not marked was_instant")
	}
	digest(a, "69000000001", "69000000002")
	expect("a's digest", "digest 69000000002")

	b := saveSearch(t, store, domain.SearchOvernight, "b", "ถนน")
	digest(b, "69000000003")
	expect("b's digest", "digest 69000000003")
	staleB := b
	b = switchTo(b, domain.SearchNormal)
	if wasInstant(b) {
		t.Fatal("b was never instant")
	}
	instant(b, "69000000003", "69000000004")
	expect("b instant", "instant 69000000004")
	digest(staleB, "69000000005")
	expect("b's digest after the switch")

	a = switchTo(a, domain.SearchNormal)
	instant(a, "69000000001", "69000000002", "69000000006")
	expect("a instant again", "instant 69000000006")
	a = switchTo(a, domain.SearchOvernight)
	digest(a, "69000000001", "69000000002", "69000000006", "69000000007")
	expect("a's digest again", "digest 69000000007")
	// A run holding a as loaded before any switch (overnight, as it is
	// now) still leaves out what a told instantly.
	stale.SearchType = domain.SearchOvernight
	digest(stale, "69000000006", "69000000008")
	expect("a's digest from a stale load", "digest 69000000008")
}

// eventsSince returns a function that returns the events stored in the
// outbox since its last call.
func eventsSince(t *testing.T, pool *pgxpool.Pool) func() []outbox.Event {
	seen := 0
	return func() []outbox.Event {
		t.Helper()
		evs, err := outbox.Stored(context.Background(), pool)
		if err != nil {
			t.Fatal(err)
		}
		evs, seen = evs[seen:], len(evs)
		return evs
	}
}

// searcher owns the searches of these tests.
const searcher = "11111111-1111-4111-8111-111111111111"

// saveSearch saves searcher's search of searchType named name, for every
// project containing word.
func saveSearch(t *testing.T, store *postgres.CriteriaStore, searchType, name, word string) domain.SavedCriteria {
	t.Helper()
	c, err := store.SaveCriteria(context.Background(), domain.SavedCriteria{UserID: searcher, Name: name, SearchType: searchType,
		Form: domain.SearchForm{AllOf: []string{word}}, CreatedAt: time.Now()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
