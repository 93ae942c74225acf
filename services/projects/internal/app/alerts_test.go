package app_test

import (
	"context"
	"testing"

	"bidradar/services/projects/internal/app"
	"bidradar/services/projects/internal/domain"
)

type memSearches struct {
	v     int64
	saved []domain.SavedCriteria
	loads int
}

func (m *memSearches) CriteriaVersion(context.Context) (int64, error) { return m.v, nil }
func (m *memSearches) NormalCriteria(context.Context) ([]domain.SavedCriteria, int64, error) {
	m.loads++
	return m.saved, m.v, nil
}

// The index is loaded once when warmed, kept while the searches' version
// stands (one version query a write), and loaded again when it moves; it
// holds the normal searches only.
func TestAlertsLoadSearchesOncePerVersion(t *testing.T) {
	ctx := context.Background()
	search := func(id, word string) domain.SavedCriteria {
		return domain.SavedCriteria{ID: id, UserID: "u1", Name: word, SearchType: domain.SearchNormal,
			Form: domain.SearchForm{AllOf: []string{word}}}
	}
	project := func(id, name string) *domain.Project {
		p := domain.Project{ID: id, Name: name}
		p.Derive()
		return &p
	}
	const s1, s2 = "00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002"
	searches := &memSearches{v: 4, saved: []domain.SavedCriteria{search(s1, "ถนน"),
		{ID: "s0", UserID: "u1", Name: "กลางคืน", SearchType: domain.SearchOvernight, Form: domain.SearchForm{AllOf: []string{"ถนน"}}}}}
	road, bridge := project("69000000001", "ก่อสร้างถนนคอนกรีต"), project("69000000002", "จัดซื้อสะพานเหล็ก")
	a := app.NewAlerts(searches)
	if err := a.Warm(ctx); err != nil || searches.loads != 1 {
		t.Fatalf("warm: %d loads, %v", searches.loads, err)
	}
	ix, v, err := a.Searches(ctx)
	if err != nil || v != 4 || searches.loads != 1 {
		t.Fatalf("same version: v%d, %d loads, %v", v, searches.loads, err)
	}
	if got := ix.AppendKeys(nil, road); len(got) != 1 || got[0].String() != s1 || len(ix.AppendKeys(nil, bridge)) != 0 {
		t.Fatalf("road matched %v, bridge %v", got, ix.AppendKeys(nil, bridge))
	}
	searches.saved, searches.v = append(searches.saved, search(s2, "สะพาน")), 5
	ix, v, err = a.Searches(ctx)
	if err != nil || v != 5 || searches.loads != 2 {
		t.Fatalf("after a new search: v%d, %d loads, %v", v, searches.loads, err)
	}
	if got := ix.AppendKeys(nil, bridge); len(got) != 1 || got[0].String() != s2 {
		t.Fatalf("bridge matched %v", got)
	}
}
