package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"bidradar/services/projects/internal/adapters/postgres"
	"bidradar/services/projects/internal/domain"
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

// TestUpdateCriteria: an edit replaces the owner's criteria, clears the
// old run's count, moves criteria_version (the matcher's cue) and shows in
// NormalCriteria; another user's id, an unknown or malformed one is
// ErrCriteriaNotFound, and a search type changed meanwhile is
// ErrCriteriaChanged with the row left alone.
func TestUpdateCriteria(t *testing.T) {
	pool, _ := setup(t)
	ctx := context.Background()
	s := postgres.NewCriteriaStore(pool)
	owner := "11111111-1111-4111-8111-111111111111"
	at := time.Date(2026, 10, 1, 9, 0, 0, 0, time.UTC)
	orig, err := s.SaveCriteria(ctx, domain.SavedCriteria{UserID: owner, Name: "ถนน", SearchType: domain.SearchOvernight,
		Form: domain.SearchForm{AnyOf: []string{"ถนน"}}, CreatedAt: at}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RecordCriteriaRun(ctx, owner, orig.ID, at, 7); err != nil {
		t.Fatal(err)
	}
	v0, err := s.CriteriaVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	normal, _, err := s.NormalCriteria(ctx)
	if err != nil || len(normal) != 0 {
		t.Fatalf("normal before the edit: %v %v", normal, err)
	}

	min := domain.Money(100_000_00)
	edit := domain.SavedCriteria{ID: orig.ID, UserID: owner, Name: "สะพาน", SearchType: domain.SearchNormal,
		Form: domain.SearchForm{AllOf: []string{"สะพาน"}, Provinces: []string{"10"}, MinBudget: &min}}
	got, err := s.UpdateCriteria(ctx, edit, domain.SearchOvernight, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "สะพาน" || got.SearchType != domain.SearchNormal || len(got.Form.AnyOf) != 0 ||
		got.Form.AllOf[0] != "สะพาน" || got.Form.Provinces[0] != "10" || *got.Form.MinBudget != min {
		t.Fatalf("updated: %+v", got)
	}
	if !got.CreatedAt.Equal(at) || got.LastRunAt != nil || got.LastMatchCount != 0 {
		t.Fatalf("created kept, run cleared: %+v", got)
	}
	if v1, _ := s.CriteriaVersion(ctx); v1 <= v0 {
		t.Fatalf("criteria_version %d → %d: the matcher would not reload", v0, v1)
	}
	normal, _, err = s.NormalCriteria(ctx)
	if err != nil || len(normal) != 1 || normal[0].ID != orig.ID || normal[0].Form.AllOf[0] != "สะพาน" {
		t.Fatalf("normal after the edit: %+v %v", normal, err)
	}
	reread, err := s.GetCriteria(ctx, owner, orig.ID)
	if err != nil || reread.Name != "สะพาน" || reread.SearchType != domain.SearchNormal {
		t.Fatalf("reread: %+v %v", reread, err)
	}

	// Expecting overnight, but it is normal now: a lost race, nothing written.
	stale := edit
	stale.Name, stale.SearchType = "ล้าสมัย", domain.SearchOvernight
	if _, err := s.UpdateCriteria(ctx, stale, domain.SearchOvernight, nil); !errors.Is(err, domain.ErrCriteriaChanged) {
		t.Fatalf("stale type: %v", err)
	}
	if c, _ := s.GetCriteria(ctx, owner, orig.ID); c.Name != "สะพาน" {
		t.Fatalf("a lost race wrote: %+v", c)
	}

	for name, c := range map[string]domain.SavedCriteria{
		"other user": {ID: orig.ID, UserID: "22222222-2222-4222-8222-222222222222", Name: "x", SearchType: domain.SearchNormal, Form: edit.Form},
		"unknown":    {ID: "33333333-3333-4333-8333-333333333333", UserID: owner, Name: "x", SearchType: domain.SearchNormal, Form: edit.Form},
		"malformed":  {ID: "not-a-uuid", UserID: owner, Name: "x", SearchType: domain.SearchNormal, Form: edit.Form},
	} {
		if _, err := s.UpdateCriteria(ctx, c, domain.SearchNormal, nil); !errors.Is(err, domain.ErrCriteriaNotFound) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if c, _ := s.GetCriteria(ctx, owner, orig.ID); c.Name != "สะพาน" {
		t.Fatalf("another user's edit wrote: %+v", c)
	}
}

// An update aborted as a deadlock victim is tried again, a bounded number
// of times; any other error is returned at once.
func TestRetryOnDeadlock(t *testing.T) {
	deadlock := &pgconn.PgError{Code: "40P01", Message: "deadlock detected"}
	for _, c := range []struct {
		errs  []error
		calls int
		want  error
	}{
		{[]error{nil}, 1, nil},
		{[]error{deadlock, nil}, 2, nil},
		{[]error{deadlock, deadlock, deadlock, nil}, 3, deadlock},
		{[]error{pgx.ErrNoRows, nil}, 1, pgx.ErrNoRows},
		{[]error{fmt.Errorf("update: %w", deadlock), nil}, 2, nil},
	} {
		calls := 0
		err := postgres.RetryOnDeadlock(3, func() error {
			calls++
			return c.errs[calls-1]
		})
		if calls != c.calls || !errors.Is(err, c.want) {
			t.Errorf("%v: %d calls, %v; want %d, %v", c.errs, calls, err, c.calls, c.want)
		}
	}
}

// TestCheckedSavesTakeTurns: twenty saves of one user at once against a
// plan holding three searches store exactly three, and an identical
// search twice at once is stored once; checked edits take turns too.
func TestCheckedSavesTakeTurns(t *testing.T) {
	pool, _ := setup(t)
	ctx := context.Background()
	s := postgres.NewCriteriaStore(pool)
	owner := "22222222-2222-4222-8222-222222222222"
	plan := domain.Plan{TierLabel: "เริ่มต้น", NormalSearchSave: 3, OvernightSearchSave: 1}
	save := func(word string) error {
		c := domain.SavedCriteria{UserID: owner, Name: word, SearchType: domain.SearchNormal,
			Form: domain.SearchForm{AnyOf: []string{word}}, CreatedAt: time.Now()}
		_, err := s.SaveCriteria(ctx, c, func(existing []domain.SavedCriteria) error {
			return domain.SavedSearchRoom(plan, existing, c, "")
		})
		return err
	}
	var wg sync.WaitGroup
	var stored, limited, dup atomic.Int32
	for i := range 20 {
		wg.Go(func() {
			word := fmt.Sprintf("คำ%d", i)
			if i%2 == 1 {
				word = "คำซ้ำ" // ten saves of the same search
			}
			switch err := save(word); {
			case err == nil:
				stored.Add(1)
			case errors.Is(err, domain.ErrSavedSearchLimit):
				limited.Add(1)
			case errors.Is(err, domain.ErrDuplicateSearch):
				dup.Add(1)
			default:
				t.Error(err)
			}
		})
	}
	wg.Wait()
	list, err := s.ListCriteria(ctx, owner, 100)
	if err != nil {
		t.Fatal(err)
	}
	same := 0
	for _, c := range list {
		if c.Form.AnyOf[0] == "คำซ้ำ" {
			same++
		}
	}
	if stored.Load() != 3 || len(list) != 3 || same > 1 || stored.Load()+limited.Load()+dup.Load() != 20 {
		t.Fatalf("stored %d (rows %d, same search %d), limited %d, duplicate %d", stored.Load(), len(list), same, limited.Load(), dup.Load())
	}

	// Two edits into the last overnight room at once: one wins.
	var edits atomic.Int32
	for _, c := range list[:2] {
		wg.Go(func() {
			c.SearchType = domain.SearchOvernight
			_, err := s.UpdateCriteria(ctx, c, domain.SearchNormal, func(existing []domain.SavedCriteria) error {
				return domain.SavedSearchRoom(plan, existing, c, domain.SearchNormal)
			})
			if err == nil {
				edits.Add(1)
			} else if !errors.Is(err, domain.ErrSavedSearchLimit) {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if edits.Load() != 1 {
		t.Fatalf("%d edits into one overnight room", edits.Load())
	}
}
