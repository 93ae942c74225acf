package postgres_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	interestsv1 "bidradar/gen/interests/v1"
	"bidradar/pkg/events"
	"bidradar/pkg/testutil/pgtest"
	"bidradar/services/interests/interestssvc"
	"bidradar/services/interests/internal/adapters/postgres"
	"bidradar/services/interests/internal/domain"
)

// newRepo returns a repository on a fresh database, and a count of the
// events of a type in its outbox.
func newRepo(t *testing.T) (*postgres.Repo, func(ev proto.Message) int) {
	t.Helper()
	ctx := context.Background()
	pool, err := interestssvc.Open(ctx, pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	count := func(ev proto.Message) int {
		subject, err := events.SubjectOf(ev)
		if err != nil {
			t.Fatal(err)
		}
		var n int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM outbox WHERE subject = $1`, subject).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	return postgres.New(pool), count
}

// Fifty concurrent first PATCHes of one record create it once, lose no
// change, and publish one event per change of a mark.
func TestConcurrentUpdatesOfOneRecord(t *testing.T) {
	repo, events := newRepo(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 50)
	created := make(chan bool, 50)
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, isNew, err := repo.Update(ctx, "u1", "69099693138", time.Now(), func(r *domain.Record) error {
				r.CommentCount++ // a counter: every update must see the previous one
				r.Like = !r.Like
				return nil
			})
			errs <- err
			created <- isNew
		}()
	}
	wg.Wait()
	close(errs)
	close(created)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	news := 0
	for c := range created {
		if c {
			news++
		}
	}
	rec, ok, err := repo.Get(ctx, "u1", "69099693138")
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if news != 1 || rec.CommentCount != 50 || rec.Like {
		t.Fatalf("created %d times, counter %d, like %v; want 1, 50, false", news, rec.CommentCount, rec.Like)
	}
	if n := events(&interestsv1.InterestChanged{}); n != 50 {
		t.Fatalf("%d interest.changed events, want 50", n)
	}
}

func TestRecordsAreScopedToTheirUser(t *testing.T) {
	repo, events := newRepo(t)
	ctx := context.Background()
	c, _, created, err := repo.AddComment(ctx, "ann", "69099693138", "ของแอน", time.Now())
	if err != nil || !created {
		t.Fatal(created, err)
	}
	if _, err := repo.UpdateComment(ctx, "bob", "69099693138", c.ID, "x", time.Now()); err != domain.ErrCommentNotFound {
		t.Fatalf("bob edits ann's comment: %v", err)
	}
	if _, err := repo.DeleteComment(ctx, "bob", "69099693138", c.ID, time.Now()); err != domain.ErrCommentNotFound {
		t.Fatalf("bob deletes ann's comment: %v", err)
	}
	if cs, _ := repo.Comments(ctx, "bob", "69099693138"); len(cs) != 0 {
		t.Fatal("bob reads ann's comments")
	}
	if recs, _ := repo.GetMany(ctx, "bob", []string{"69099693138"}); len(recs) != 0 {
		t.Fatal("bob's flags show ann's record")
	}
	ids, _, err := repo.ProjectIDs(ctx, "ann", domain.FlagComment, 10)
	if err != nil || len(ids) != 1 {
		t.Fatalf("ann's commented ids: %v %v", ids, err)
	}
	if n := events(&interestsv1.CommentAdded{}); n != 1 {
		t.Fatalf("%d comment.added events, want 1", n)
	}
	rec, err := repo.DeleteComment(ctx, "ann", "69099693138", c.ID, time.Now())
	if err != nil || rec.CommentCount != 0 {
		t.Fatalf("delete: %+v %v", rec, err)
	}
}

func TestListsAndFlags(t *testing.T) {
	repo, _ := newRepo(t)
	ctx := context.Background()
	base := time.Now()
	ids := []string{"10000000001", "10000000002", "10000000003"}
	for i, id := range ids {
		_, _, err := repo.Update(ctx, "ann", id, base.Add(time.Duration(i)*time.Second), func(r *domain.Record) error {
			r.Like, r.Archived, r.Updated = true, i == 2, base.Add(time.Duration(i)*time.Second)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	recs, total, err := repo.List(ctx, "ann", false, domain.Page{Number: 1, Size: 10})
	if err != nil || total != 2 || len(recs) != 2 || recs[0].ProjectID != ids[1] {
		t.Fatalf("active: %d %+v %v (want newest change first)", total, recs, err)
	}
	liked, _, _ := repo.ProjectIDs(ctx, "ann", domain.FlagLike, 10)
	archived, _, _ := repo.ProjectIDs(ctx, "ann", domain.FlagArchive, 10)
	if len(liked) != 2 || len(archived) != 1 || archived[0] != ids[2] {
		t.Fatalf("liked %v archived %v: an archived record is only under the archive flag", liked, archived)
	}
	if _, trunc, _ := repo.ProjectIDs(ctx, "ann", domain.FlagLike, 1); !trunc {
		t.Fatal("truncation not reported")
	}
	c, err := repo.Counts(ctx, "ann")
	if err != nil || c.Active != 2 || c.Archived != 1 || c.Liked != 2 {
		t.Fatalf("counts %+v %v", c, err)
	}
}
