package app_test

import (
	"context"
	"testing"
	"time"

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

type memProjects map[string]domain.Project

func (m memProjects) GetMany(_ context.Context, ids []string) ([]domain.Project, error) {
	var out []domain.Project
	for _, id := range ids {
		if p, ok := m[id]; ok {
			out = append(out, p)
		}
	}
	return out, nil
}

type memRecorder struct {
	asOf []int64
	told map[string][]string // project → ids of the searches matched
}

func (m *memRecorder) RecordMatches(_ context.Context, ms []domain.ProjectMatches, asOf int64, _ time.Time) (int, error) {
	m.asOf = append(m.asOf, asOf)
	n := 0
	for _, pm := range ms {
		for _, k := range pm.Keys {
			m.told[pm.Project.ID] = append(m.told[pm.Project.ID], k.String())
			n++
		}
	}
	return n, nil
}

// The matcher loads the searches once when warmed, matches projects
// against them without reading them again while their version stands,
// and reloads them when it moves, telling the recorder which version it
// matched.
func TestAlertsLoadSearchesOncePerVersion(t *testing.T) {
	ctx := context.Background()
	search := func(id, word string) domain.SavedCriteria {
		return domain.SavedCriteria{ID: id, UserID: "u1", Name: word, SearchType: domain.SearchNormal,
			Form: domain.SearchForm{AllOf: []string{word}}}
	}
	project := func(id, name string) domain.Project {
		p := domain.Project{ID: id, Name: name}
		p.Derive()
		return p
	}
	const s1, s2 = "00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002"
	searches := &memSearches{v: 4, saved: []domain.SavedCriteria{search(s1, "ถนน"),
		{ID: "s0", UserID: "u1", Name: "กลางคืน", SearchType: domain.SearchOvernight, Form: domain.SearchForm{AllOf: []string{"ถนน"}}}}}
	projects := memProjects{"69000000001": project("69000000001", "ก่อสร้างถนนคอนกรีต"), "69000000002": project("69000000002", "จัดซื้อสะพานเหล็ก")}
	rec := &memRecorder{told: map[string][]string{}}
	a := app.NewAlerts(projects, searches, rec, nil)
	if err := a.Warm(ctx); err != nil || searches.loads != 1 {
		t.Fatalf("warm: %d loads, %v", searches.loads, err)
	}
	if n, err := a.MatchProjects(ctx, []string{"69000000001", "69000000002"}); err != nil || n != 1 || searches.loads != 1 {
		t.Fatalf("first batch: %d told, %d loads, %v", n, searches.loads, err)
	}
	searches.saved, searches.v = append(searches.saved, search(s2, "สะพาน")), 5
	if n, err := a.MatchProjects(ctx, []string{"69000000002"}); err != nil || n != 1 || searches.loads != 2 {
		t.Fatalf("after a new search: %d told, %d loads, %v", n, searches.loads, err)
	}
	if got := rec.told; len(got) != 2 || len(got["69000000001"]) != 1 || got["69000000001"][0] != s1 || got["69000000002"][0] != s2 || rec.asOf[0] != 4 || rec.asOf[1] != 5 {
		t.Fatalf("told %v at versions %v", got, rec.asOf)
	}
}
