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

func (m *memCriteria) list(userID string) []domain.SavedCriteria {
	var out []domain.SavedCriteria
	for _, c := range m.rows {
		if c.UserID == userID {
			out = append(out, c)
		}
	}
	return out
}

func (m *memCriteria) ListCriteria(_ context.Context, userID string, _ int) ([]domain.SavedCriteria, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.list(userID), nil
}

func (m *memCriteria) UpdateCriteria(_ context.Context, c domain.SavedCriteria, wasType string, check domain.RoomCheck) (domain.SavedCriteria, error) {
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
	if check != nil {
		if err := check(m.list(c.UserID)); err != nil {
			return c, err
		}
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

// noQuota fails the test's edits if they consume anything: an edit is not
// a new search combination.
type noQuota struct{ calls []string }

func (q *noQuota) Consume(_ context.Context, _ domain.Caller, kind string, _ int) (domain.QuotaAnswer, error) {
	q.calls = append(q.calls, kind)
	return domain.QuotaAnswer{Allowed: true, RemainingToday: 1, RemainingMonth: 1}, nil
}

// plans answers one plan for everybody.
type plans struct{ p domain.Plan }

func (p plans) Plan(context.Context, string) (domain.Plan, error) { return p.p, nil }

// countRepo answers every search with 5 matches.
type countRepo struct{ memRepo }

func (*countRepo) Search(context.Context, domain.Criteria, domain.PageRequest) (domain.ResultPage, error) {
	return domain.ResultPage{Total: 5}, nil
}

const critID = "11111111-1111-4111-8111-111111111111"

// criteriaApp holds u1's search critID of startType, and heldOvernight
// other overnight searches, under a plan of 5 normal and 1 overnight.
func criteriaApp(t *testing.T, heldOvernight int, startType string) (*app.App, *memCriteria, *noQuota) {
	t.Helper()
	a, err := app.New(&countRepo{}, &memRuns{}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	store := &memCriteria{}
	store.put(domain.SavedCriteria{ID: critID, UserID: "u1", Name: "ถนน", SearchType: startType, Form: domain.SearchForm{AnyOf: []string{"ถนน"}}})
	for i := range heldOvernight {
		store.put(domain.SavedCriteria{ID: "other-" + strconv.Itoa(i), UserID: "u1", SearchType: domain.SearchOvernight, Form: domain.SearchForm{AnyOf: []string{"น้ำ" + strconv.Itoa(i)}}})
	}
	q := &noQuota{}
	a.Configure(app.Extras{Criteria: store, Quota: q, Plans: plans{domain.Plan{TierLabel: "เริ่มต้น", NormalSearchSave: 5, OvernightSearchSave: 1}}})
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

// TestUpdateCriteriaRoom: an edit into the other kind needs room there,
// one that keeps its kind does not; nothing is consumed.
func TestUpdateCriteriaRoom(t *testing.T) {
	t.Parallel()
	u1 := domain.Caller{UserID: "u1"}
	cases := []struct {
		name     string
		from, to string
		held     int // other overnight searches
		wantKind apperr.Kind
	}{
		{"normal stays normal", domain.SearchNormal, "normal", 0, saved},
		{"empty type is normal", domain.SearchNormal, "", 1, saved},
		{"normal to overnight with room", domain.SearchNormal, "overnight", 0, saved},
		{"normal to overnight at the limit", domain.SearchNormal, "overnight", 1, apperr.Aborted},
		{"overnight to normal", domain.SearchOvernight, "normal", 1, saved},
		{"overnight stays overnight above the limit", domain.SearchOvernight, "OVERNIGHT", 1, saved},
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
			if len(q.calls) != 0 {
				t.Fatalf("an edit consumed %v", q.calls)
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
// store call; another user's or an unknown id is 404; an edit that loses a
// race is 409.
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
		{"name with a bidirectional override", app.UpdateCriteriaInput{ID: critID, Name: "ถนน \u202eงบ", Form: domain.SearchForm{AnyOf: []string{"ถนน"}}}, apperr.InvalidArgument},
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
	if len(q.calls) != 0 {
		t.Fatalf("an edit consumed %v", q.calls)
	}
}
