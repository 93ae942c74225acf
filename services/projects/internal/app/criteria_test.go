package app_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"testing"
	"time"

	"bidradar/pkg/apperr"
	"bidradar/services/projects/internal/app"
	"bidradar/services/projects/internal/domain"
)

// memCriteria is an in-memory SavedCriteriaRepository with the adapter's
// rules: scoped to the owner, the edit guarded by the previous search type.
type memCriteria struct {
	domain.SavedCriteriaRepository
	mu   sync.Mutex
	rows map[string]domain.SavedCriteria
	// beforeUpdate, when set, runs before each UpdateCriteria (a concurrent edit).
	beforeUpdate func(m *memCriteria)
}

func (m *memCriteria) put(c domain.SavedCriteria) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.rows == nil {
		m.rows = map[string]domain.SavedCriteria{}
	}
	m.rows[c.ID] = c
}

func (m *memCriteria) GetCriteria(_ context.Context, userID, id string) (domain.SavedCriteria, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.rows[id]
	if !ok || c.UserID != userID {
		return domain.SavedCriteria{}, domain.ErrCriteriaNotFound
	}
	return c, nil
}

func (m *memCriteria) UpdateCriteria(_ context.Context, c domain.SavedCriteria, wasType string) (domain.SavedCriteria, error) {
	if m.beforeUpdate != nil {
		m.beforeUpdate(m)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	old, ok := m.rows[c.ID]
	switch {
	case !ok || old.UserID != c.UserID:
		return c, domain.ErrCriteriaNotFound
	case old.SearchType != wasType:
		return c, domain.ErrCriteriaChanged
	}
	old.Name, old.SearchType, old.Form, old.LastRunAt, old.LastMatchCount = c.Name, c.SearchType, c.Form, nil, 0
	m.rows[c.ID] = old
	return old, nil
}

func (m *memCriteria) RecordCriteriaRun(_ context.Context, userID, id string, at time.Time, n int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.rows[id]
	c.LastRunAt, c.LastMatchCount = &at, n
	m.rows[id] = c
	return nil
}

// countingQuota keeps the standing overnight count like the subscription
// service: a unit is refused past limit, a negative amount releases.
type countingQuota struct {
	mu    sync.Mutex
	limit int
	held  int
	calls []int
}

func (q *countingQuota) Consume(_ context.Context, _ domain.Caller, kind string, amount int) (domain.QuotaAnswer, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if kind != domain.QuotaOvernightSearchSave {
		return domain.QuotaAnswer{}, errors.New("an edit must consume only overnight_search_save, got " + kind)
	}
	q.calls = append(q.calls, amount)
	if amount > 0 && q.held+amount > q.limit {
		return domain.QuotaAnswer{Detail: "Limit reached: เงื่อนไขค้นหาข้ามคืนที่บันทึกได้ ครบ " + strconv.Itoa(q.limit) + " ครั้งแล้ว"}, nil
	}
	q.held = max(q.held+amount, 0)
	return domain.QuotaAnswer{Allowed: true, RemainingToday: q.limit - q.held, RemainingMonth: -1}, nil
}

// countRepo answers every search with 5 matches.
type countRepo struct{ memRepo }

func (*countRepo) Search(context.Context, domain.Criteria, domain.PageRequest) (domain.ResultPage, error) {
	return domain.ResultPage{Total: 5}, nil
}

const critID = "11111111-1111-4111-8111-111111111111"

func criteriaApp(t *testing.T, held int, startType string) (*app.App, *memCriteria, *countingQuota) {
	t.Helper()
	a, err := app.New(&countRepo{}, &memRuns{}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	store := &memCriteria{}
	store.put(domain.SavedCriteria{ID: critID, UserID: "u1", Name: "ถนน", SearchType: startType, Form: domain.SearchForm{AnyOf: []string{"ถนน"}}})
	q := &countingQuota{limit: 1, held: held}
	a.Configure(app.Extras{Criteria: store, Quota: q})
	return a, store, q
}

// saved is the kind of no error.
const saved apperr.Kind = -1

func kindOf(err error) apperr.Kind {
	var ae *apperr.Error
	switch {
	case err == nil:
		return saved
	case errors.As(err, &ae):
		return ae.Kind
	}
	return apperr.Internal
}

// TestUpdateCriteriaQuota: the overnight unit follows the search type, as
// saving and deleting move it; nothing else is consumed.
func TestUpdateCriteriaQuota(t *testing.T) {
	t.Parallel()
	u1 := domain.Caller{UserID: "u1"}
	cases := []struct {
		name      string
		from, to  string
		held      int
		wantCalls []int
		wantHeld  int
		wantKind  apperr.Kind
	}{
		{"normal stays normal", domain.SearchNormal, "normal", 0, nil, 0, saved},
		{"empty type is normal", domain.SearchNormal, "", 1, nil, 1, saved},
		{"normal to overnight consumes", domain.SearchNormal, "overnight", 0, []int{1}, 1, saved},
		{"normal to overnight at the limit", domain.SearchNormal, "overnight", 1, []int{1}, 1, apperr.Aborted},
		{"overnight to normal gives back", domain.SearchOvernight, "normal", 1, []int{-1}, 0, saved},
		{"overnight stays overnight", domain.SearchOvernight, "OVERNIGHT", 1, nil, 1, saved},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			a, store, q := criteriaApp(t, c.held, c.from)
			res, err := a.UpdateCriteria(context.Background(), app.UpdateCriteriaInput{
				Caller: u1, ID: critID, Name: "  สะพาน   ลอย ", SearchType: c.to, Form: domain.SearchForm{AllOf: []string{"สะพาน"}},
			})
			if kindOf(err) != c.wantKind {
				t.Fatalf("err %v, want kind %q", err, c.wantKind)
			}
			if len(q.calls) != len(c.wantCalls) || (len(q.calls) > 0 && q.calls[0] != c.wantCalls[0]) || q.held != c.wantHeld {
				t.Fatalf("quota calls %v held %d, want %v held %d", q.calls, q.held, c.wantCalls, c.wantHeld)
			}
			got, _ := store.GetCriteria(context.Background(), "u1", critID)
			if c.wantKind != saved {
				if got.Name != "ถนน" || got.SearchType != c.from {
					t.Fatalf("a refused edit wrote: %+v", got)
				}
				return
			}
			if got.Name != "สะพาน ลอย" || got.Form.AllOf[0] != "สะพาน" || len(got.Form.AnyOf) != 0 || got.LastMatchCount != 5 {
				t.Fatalf("stored %+v", got)
			}
			if res.Criteria.ID != critID || res.MatchCount != 5 || res.Criteria.LastRunAt == nil {
				t.Fatalf("result %+v", res)
			}
		})
	}
}

// TestUpdateCriteriaRefusals: bad input is refused before any quota or
// store call; another user's or an unknown id is 404; a unit consumed for
// an edit that then loses a race is given back.
func TestUpdateCriteriaRefusals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bad := []struct {
		name string
		in   app.UpdateCriteriaInput
		kind apperr.Kind
	}{
		{"nothing to search", app.UpdateCriteriaInput{ID: critID}, apperr.Validation},
		{"search type", app.UpdateCriteriaInput{ID: critID, SearchType: "weekly", Form: domain.SearchForm{AnyOf: []string{"ถนน"}}}, apperr.InvalidArgument},
		{"project id", app.UpdateCriteriaInput{ID: critID, Form: domain.SearchForm{ProjectIDs: []string{"123"}}}, apperr.InvalidArgument},
		{"other user", app.UpdateCriteriaInput{Caller: domain.Caller{UserID: "u2"}, ID: critID, SearchType: "overnight", Form: domain.SearchForm{AnyOf: []string{"ถนน"}}}, apperr.NotFound},
		{"unknown", app.UpdateCriteriaInput{ID: "22222222-2222-4222-8222-222222222222", SearchType: "overnight", Form: domain.SearchForm{AnyOf: []string{"ถนน"}}}, apperr.NotFound},
	}
	for _, c := range bad {
		a, store, q := criteriaApp(t, 0, domain.SearchNormal)
		if c.in.Caller.UserID == "" {
			c.in.Caller = domain.Caller{UserID: "u1"}
		}
		_, err := a.UpdateCriteria(ctx, c.in)
		if kindOf(err) != c.kind {
			t.Errorf("%s: %v, want %s", c.name, err, c.kind)
		}
		if len(q.calls) != 0 {
			t.Errorf("%s: quota called %v", c.name, q.calls)
		}
		if got, _ := store.GetCriteria(ctx, "u1", critID); got.Name != "ถนน" {
			t.Errorf("%s: wrote %+v", c.name, got)
		}
	}

	// Someone switches it to overnight between our read and our write.
	a, store, q := criteriaApp(t, 0, domain.SearchNormal)
	store.beforeUpdate = func(m *memCriteria) {
		c, _ := m.GetCriteria(ctx, "u1", critID)
		c.SearchType = domain.SearchOvernight
		m.put(c)
	}
	_, err := a.UpdateCriteria(ctx, app.UpdateCriteriaInput{Caller: domain.Caller{UserID: "u1"}, ID: critID, SearchType: "overnight", Form: domain.SearchForm{AnyOf: []string{"น้ำ"}}})
	if kindOf(err) != apperr.Aborted {
		t.Fatalf("lost race: %v", err)
	}
	if len(q.calls) != 2 || q.calls[0] != 1 || q.calls[1] != -1 || q.held != 0 {
		t.Fatalf("the unit of a lost race is not given back: %v held %d", q.calls, q.held)
	}
}
