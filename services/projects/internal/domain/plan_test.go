package domain

import (
	"errors"
	"strings"
	"testing"

	"bidradar/pkg/apperr"
)

func TestFingerprintSameSearch(t *testing.T) {
	m := Money(100000)
	a := SearchForm{AnyOf: []string{"ถนน", "Computer"}, Provinces: []string{"10", "50"}, BudgetYears: []int{2569, 2568}, MinBudget: &m}
	same := []SearchForm{
		{AnyOf: []string{"computer", "ถนน"}, Provinces: []string{"50", "10"}, BudgetYears: []int{2568, 2569}, MinBudget: &m},
		{AnyOf: []string{"ถนน", " COMPUTER "}, Provinces: []string{"10", "50"}, BudgetYears: []int{2569, 2568}, MinBudget: &m},
	}
	for _, s := range same {
		if s.Fingerprint() != a.Fingerprint() {
			t.Errorf("%+v should be the same search as %+v", s, a)
		}
	}
	other := []SearchForm{
		{AllOf: []string{"ถนน", "Computer"}, Provinces: []string{"10", "50"}, BudgetYears: []int{2569, 2568}, MinBudget: &m},
		{AnyOf: []string{"ถนน", "Computer"}, Provinces: []string{"10"}, BudgetYears: []int{2569, 2568}, MinBudget: &m},
		{AnyOf: []string{"ถนน", "Computer"}, Provinces: []string{"10", "50"}, BudgetYears: []int{2569, 2568}},
		{AnyOf: []string{"ถนน", "Computer"}, Provinces: []string{"10", "50"}, BudgetYears: []int{2569, 2568}, MinBudget: &m, From: "2026-01-01"},
	}
	for _, o := range other {
		if o.Fingerprint() == a.Fingerprint() {
			t.Errorf("%+v should differ from %+v", o, a)
		}
	}
}

func TestSavedSearchRoom(t *testing.T) {
	free := Plan{Tier: "free", TierLabel: "ฟรี", NormalSearchSave: 1, OvernightSearchSave: 0}
	starter := Plan{Tier: "starter", TierLabel: "เริ่มต้น", NormalSearchSave: 5, OvernightSearchSave: 5}
	unlimited := Plan{NormalSearchSave: -1, OvernightSearchSave: -1}
	road := SearchForm{AnyOf: []string{"ถนน"}}
	bridge := SearchForm{AnyOf: []string{"สะพาน"}}
	saved := func(id, typ string, f SearchForm) SavedCriteria {
		return SavedCriteria{ID: id, Name: "ชื่อ " + id, SearchType: typ, Form: f}
	}
	held := []SavedCriteria{saved("a", SearchNormal, road)}
	// A pro user's 3 normal searches, downgraded to free (1).
	over := []SavedCriteria{saved("a", SearchNormal, road), saved("b", SearchNormal, bridge), saved("c", SearchNormal, SearchForm{AnyOf: []string{"ท่อ"}})}
	cases := []struct {
		name     string
		plan     Plan
		existing []SavedCriteria
		c        SavedCriteria
		wasType  string
		slug     string // "" allowed
	}{
		{"free: the first normal search", free, nil, saved("", SearchNormal, road), "", ""},
		{"free: a second normal search", free, held, saved("", SearchNormal, bridge), "", "saved-search-limit"},
		{"free: the same again", free, held, saved("", SearchNormal, SearchForm{AnyOf: []string{" ถนน "}}), "", "duplicate-search"},
		{"free: no overnight at all", free, nil, saved("", SearchOvernight, bridge), "", "upgrade_required"},
		{"free: the same criteria as the other kind is another search", starter, held, saved("", SearchOvernight, road), "", ""},
		{"starter: a second normal search", starter, held, saved("", SearchNormal, bridge), "", ""},
		{"starter: the same again", starter, held, saved("", SearchNormal, road), "", "duplicate-search"},
		{"unlimited", unlimited, over, saved("", SearchNormal, SearchForm{AnyOf: []string{"ไฟ"}}), "", ""},
		{"downgraded: a new one is refused", free, over, saved("", SearchNormal, SearchForm{AnyOf: []string{"ไฟ"}}), "", "saved-search-limit"},
		{"downgraded: editing one it holds goes on", free, over, saved("b", SearchNormal, SearchForm{AnyOf: []string{"ไฟ"}}), SearchNormal, ""},
		{"an edit may keep its own criteria", free, held, saved("a", SearchNormal, road), SearchNormal, ""},
		{"an edit into a copy of another is refused", free, over, saved("b", SearchNormal, road), SearchNormal, "duplicate-search"},
		{"an edit into a kind not in the tier", free, held, saved("a", SearchOvernight, road), SearchNormal, "upgrade_required"},
		{"an edit into a kind with room", starter, []SavedCriteria{saved("a", SearchNormal, road), saved("n1", SearchOvernight, bridge)},
			saved("a", SearchOvernight, road), SearchNormal, ""},
		{"an edit into a full kind", Plan{NormalSearchSave: 5, OvernightSearchSave: 1}, []SavedCriteria{saved("a", SearchNormal, road), saved("n1", SearchOvernight, bridge)},
			saved("a", SearchOvernight, road), SearchNormal, "saved-search-limit"},
	}
	for _, c := range cases {
		err := SavedSearchRoom(c.plan, c.existing, c.c, c.wasType)
		var ae *apperr.Error
		switch {
		case c.slug == "" && err != nil:
			t.Errorf("%s: refused %v", c.name, err)
		case c.slug != "" && (!errors.As(err, &ae) || ae.Slug != c.slug):
			t.Errorf("%s: %v, want %s", c.name, err, c.slug)
		}
	}
	err := SavedSearchRoom(free, held, saved("", SearchNormal, bridge), "")
	if !strings.Contains(err.Error(), "Limit reached") || !strings.Contains(err.Error(), "1 ชุด") || apperr.KindOf(err) != apperr.Aborted {
		t.Fatalf("limit detail %v", err)
	}
	if err := SavedSearchRoom(free, held, saved("", SearchNormal, road), ""); !strings.Contains(err.Error(), "ชื่อ a") || apperr.KindOf(err) != apperr.AlreadyExists {
		t.Fatalf("duplicate detail %v", err)
	}
	if n := SavedSearchesLeft(starter, over, SearchNormal); n != 2 {
		t.Fatalf("left %d", n)
	}
	if n := SavedSearchesLeft(free, over, SearchNormal); n != 0 {
		t.Fatalf("left over the limit %d", n)
	}
}
