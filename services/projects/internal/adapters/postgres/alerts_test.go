package postgres_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"google.golang.org/protobuf/proto"

	projectsv1 "bidradar/gen/projects/v1"
	"bidradar/pkg/outbox"
	"bidradar/services/projects/internal/adapters/eventproto"
	"bidradar/services/projects/internal/adapters/postgres"
	"bidradar/services/projects/internal/domain"
)

// RecordMatches records the new search–project pairs of a batch once (in
// one statement) and tells each in its own criteria.matched event, all in
// one outbox row; pairs already recorded, repeated in the batch or of a
// deleted search tell nothing; rows go with their search, also one deleted
// while its matches are being recorded.
func TestRecordMatchesOnce(t *testing.T) {
	pool, _ := setup(t)
	ctx := context.Background()
	repo := postgres.New(pool, eventproto.Encoder{}, postgres.Options{})
	store := postgres.NewCriteriaStore(pool)
	const user = "11111111-1111-4111-8111-111111111111"
	save := func(word string) domain.SavedCriteria {
		t.Helper()
		c, err := store.SaveCriteria(ctx, domain.SavedCriteria{UserID: user, Name: word, SearchType: domain.SearchNormal,
			Form: domain.SearchForm{AllOf: []string{word}}, CreatedAt: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		// Ids are compared as PostgreSQL spells them; a caller's case does not matter.
		c.ID = strings.ToUpper(c.ID)
		return c
	}
	a, b, gone := save("สะพาน"), save("ถนน"), save("ฝาย")
	if _, err := store.DeleteCriteria(ctx, user, strings.ToLower(gone.ID)); err != nil {
		t.Fatal(err)
	}
	match := func(c domain.SavedCriteria, id string) domain.CriteriaMatch {
		return domain.CriteriaMatch{Criteria: &c, Project: &domain.Project{ID: id, Name: "โครงการ " + id}}
	}
	told := func() []string {
		t.Helper()
		evs, err := outbox.Stored(ctx, pool)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range evs {
			var m projectsv1.CriteriaMatched
			if err := proto.Unmarshal(e.Payload, &m); err != nil || m.EventId != e.ID || len(m.Projects) != 1 {
				t.Fatalf("event %v: %v", &m, err)
			}
			out = append(out, strings.ToUpper(m.CriteriaId)+" "+m.Projects[0].ProjectId)
		}
		return out
	}
	now := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	n, err := repo.RecordMatches(ctx, []domain.CriteriaMatch{
		match(b, "69000000002"), match(a, "69000000001"), match(a, "69000000002"), match(b, "69000000002"), match(gone, "69000000001"),
	}, now)
	if err != nil || n != 3 {
		t.Fatalf("first batch: %d new, %v", n, err)
	}
	want := []string{b.ID + " 69000000002", a.ID + " 69000000001", a.ID + " 69000000002"} // in the batch's order
	if got := told(); !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	n, err = repo.RecordMatches(ctx, []domain.CriteriaMatch{match(a, "69000000001"), match(b, "69000000003"), match(a, "69000000002")}, now)
	if err != nil || n != 1 {
		t.Fatalf("second batch: %d new, %v", n, err)
	}
	want = append(want, b.ID+" 69000000003")
	if got := told(); !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	var rows, outboxRows int
	if err := pool.QueryRow(ctx, "SELECT (SELECT count(*) FROM criteria_matches), (SELECT count(*) FROM outbox)").Scan(&rows, &outboxRows); err != nil {
		t.Fatal(err)
	}
	if rows != 4 || outboxRows != 2 {
		t.Fatalf("%d matches recorded in %d outbox rows, want 4 in 2", rows, outboxRows)
	}

	// Rows go with their search (by trigger, migration 12).
	count := func(c domain.SavedCriteria) int {
		t.Helper()
		var n int
		if err := pool.QueryRow(ctx, "SELECT count(*) FROM criteria_matches WHERE criteria_id = $1", c.ID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if _, err := store.DeleteCriteria(ctx, user, strings.ToLower(a.ID)); err != nil {
		t.Fatal(err)
	}
	if count(a) != 0 || count(b) != 2 {
		t.Fatalf("after deleting a search: %d rows of it, %d of the other", count(a), count(b))
	}
	if err := store.DeleteUserCriteria(ctx, user); err != nil {
		t.Fatal(err)
	}
	if count(b) != 0 {
		t.Fatalf("after deleting the user's searches: %d rows", count(b))
	}

	// A search deleted while its matches are being recorded: the recording
	// waits for the delete and records nothing of it, the other search's
	// match is recorded.
	c, d := save("ประปา"), save("ท่อ")
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "DELETE FROM search_criteria WHERE id = $1", c.ID); err != nil {
		t.Fatal(err)
	}
	type result struct {
		n   int
		err error
	}
	done := make(chan result, 1)
	go func() {
		n, err := repo.RecordMatches(ctx, []domain.CriteriaMatch{match(c, "69000000005"), match(d, "69000000005")}, now)
		done <- result{n, err}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for waiting := false; !waiting; {
		if err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock')`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatal("the recording did not wait for the delete")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if r := <-done; r.err != nil || r.n != 1 {
		t.Fatalf("recording beside a delete: %d new, %v", r.n, r.err)
	}
	if count(c) != 0 || count(d) != 1 {
		t.Fatalf("deleted search %d rows, other %d", count(c), count(d))
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
	const user = "11111111-1111-4111-8111-111111111111"
	save := func(word string) domain.SavedCriteria {
		t.Helper()
		c, err := store.SaveCriteria(ctx, domain.SavedCriteria{UserID: user, Name: word, SearchType: domain.SearchOvernight,
			Form: domain.SearchForm{AllOf: []string{word}}, CreatedAt: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		return c
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
	if n, err := repo.RecordMatches(ctx, []domain.CriteriaMatch{{Criteria: &c, Project: &domain.Project{ID: "69000000001"}}}, now); err != nil || n != 1 {
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
		if m.RunKey == "" {
			continue // c's instant alert
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
	if want := []row{{"ถนน", 1}, {"ฝาย", 1}, {"สะพาน", 2}}; !slices.Equal(stored, want) {
		t.Fatalf("digest rows %v, want %v", stored, want)
	}
}
