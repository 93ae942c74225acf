package domain_test

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"bidradar/services/projects/internal/demo"
	"bidradar/services/projects/internal/domain"
)

// The index finds exactly the searches the search oracle (Matcher) finds,
// for every project: random keyword searches (all / any / none, 1 to 6
// runes cut from real project texts, so many match), filter-only searches
// and overnight searches (never alerting); half of
// them in one to three provinces (the index files them by province), some
// naming the same province twice; a third bounding the budget and a third
// naming methods (the index checks both itself first), some a method no
// project has, some projects without a budget, a sixth with a status and
// some with more keywords than an entry holds (both left to the matcher),
// and many naming the same keyword (an entry looks a term up once a
// project, however many searches name it).
func TestCriteriaIndexAgreesWithMatcher(t *testing.T) {
	g := demo.New(7, time.Date(2026, 11, 1, 0, 0, 0, 0, domain.Bangkok))
	projects := make([]domain.Project, 400)
	for i := range projects {
		projects[i] = g.Project(i)
		if i%9 == 0 {
			projects[i].Budget = nil
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	cut := func() string {
		runes := []rune(projects[r.IntN(len(projects))].SearchText)
		n := 1 + r.IntN(6)
		if len(runes) <= n {
			return string(runes)
		}
		i := r.IntN(len(runes) - n)
		return string(runes[i : i+n])
	}
	var saved []domain.SavedCriteria
	for i := range 600 {
		var f domain.SearchForm
		switch r.IntN(7) {
		case 0:
			f.AllOf = []string{cut()}
		case 1:
			f.AllOf = []string{cut(), cut()}
			f.NoneOf = []string{cut()}
		case 2:
			f.AnyOf = []string{cut(), cut(), cut()}
		case 3:
			f.AnyOf = []string{cut()}
			f.AllOf = []string{cut()}
		case 4: // more keywords than an entry holds
			f.AnyOf = []string{cut(), cut(), cut()}
			f.AllOf = []string{cut()}
			f.NoneOf = []string{cut()}
		case 5: // the keywords of an earlier search, again
			if i > 0 {
				prev := saved[r.IntN(len(saved))].Form
				f.AllOf, f.AnyOf, f.NoneOf = prev.AllOf, prev.AnyOf, prev.NoneOf
			}
		default:
			f.Methods = []string{projects[r.IntN(len(projects))].MethodCode}
		}
		method := func() string { return projects[r.IntN(len(projects))].MethodCode }
		switch r.IntN(6) {
		case 0:
			f.Methods = append(f.Methods, method())
		case 1:
			f.Methods = append(f.Methods, method(), "99")
		}
		budget := func() *domain.Money {
			for {
				if b := projects[r.IntN(len(projects))].Budget; b != nil {
					return b
				}
			}
		}
		switch r.IntN(6) {
		case 0:
			f.MinBudget = budget()
		case 1:
			f.MaxBudget = budget()
		case 2:
			lo, hi := budget(), budget()
			if *lo > *hi {
				lo, hi = hi, lo
			}
			f.MinBudget, f.MaxBudget = lo, hi
		}
		if r.IntN(6) == 0 { // a filter the index leaves to the matcher
			f.Statuses = []string{string(projects[r.IntN(len(projects))].Status)}
		}
		province := func() string { return projects[r.IntN(len(projects))].ProvinceCode }
		switch r.IntN(6) {
		case 0:
			f.Provinces = []string{province()}
		case 1:
			f.Provinces = []string{province(), province(), province()}
		case 2:
			p := province()
			f.Provinces = []string{p, province(), p}
		}
		kind := domain.SearchNormal
		if i%10 == 0 {
			kind = domain.SearchOvernight
		}
		saved = append(saved, domain.SavedCriteria{ID: "s" + strconv.Itoa(i), UserID: "u", SearchType: kind, Form: f})
	}
	ix := domain.NewCriteriaIndex(saved)
	if ix.Len() != 540 {
		t.Fatalf("indexed %d normal searches, want 540", ix.Len())
	}
	byID := map[string]domain.SearchForm{}
	for _, s := range saved {
		byID[s.ID] = s.Form
	}
	total, inProvince := 0, 0
	for i := range projects {
		p := &projects[i]
		var want []string
		for _, s := range saved {
			if s.SearchType == domain.SearchNormal && domain.NewMatcher(s.Form.Criteria()).Match(p) {
				want = append(want, s.ID)
			}
		}
		var got []string
		for _, s := range ix.Match(p) {
			got = append(got, s.ID)
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("project %s: index %v, oracle %v", p.ID, got, want)
		}
		total += len(got)
		for _, id := range got {
			if len(byID[id].Provinces) > 0 {
				inProvince++
			}
		}
	}
	if total < 1000 {
		t.Fatalf("only %d matches: the test exercises too little", total)
	}
	t.Logf("%d matches, %d of searches naming provinces", total, inProvince)
	if inProvince < 100 {
		t.Fatalf("only %d matches of searches naming provinces: the test exercises too little", inProvince)
	}
	// The consumer's workers share one index: each Match remembers its
	// own project's terms.
	var wg sync.WaitGroup
	counts := make([]int, 4)
	for w := range counts {
		wg.Go(func() {
			for i := range projects {
				counts[w] += len(ix.Match(&projects[(i+w*97)%len(projects)]))
			}
		})
	}
	wg.Wait()
	for w, n := range counts {
		if n != total {
			t.Fatalf("worker %d of 4 at once: %d matches, alone %d", w, n, total)
		}
	}
}

// Past the 63 methods the index has bits for, searches naming other
// methods are left to the matcher: still exactly the oracle's matches.
func TestCriteriaIndexManyMethods(t *testing.T) {
	var saved []domain.SavedCriteria
	var projects []domain.Project
	for i := range 80 {
		code := "m" + strconv.Itoa(i)
		saved = append(saved, domain.SavedCriteria{ID: "s" + strconv.Itoa(i), SearchType: domain.SearchNormal,
			Form: domain.SearchForm{AllOf: []string{"ถนน"}, Methods: []string{code, "m" + strconv.Itoa((i+1)%80)}}})
		p := domain.Project{ID: "p" + strconv.Itoa(i), Name: "ก่อสร้างถนน", MethodCode: code}
		p.Derive()
		projects = append(projects, p)
	}
	saved = append(saved, domain.SavedCriteria{ID: "any", SearchType: domain.SearchNormal, Form: domain.SearchForm{AllOf: []string{"ถนน"}}})
	other := domain.Project{ID: "other", Name: "ก่อสร้างถนน", MethodCode: "zz"}
	other.Derive()
	projects = append(projects, other)
	ix := domain.NewCriteriaIndex(saved)
	for i := range projects {
		p := &projects[i]
		var got []string
		for _, s := range ix.Match(p) {
			got = append(got, s.ID)
		}
		slices.Sort(got)
		want := []string{"any"}
		if i < 80 {
			// Its own method's search and the one before it (which names it second).
			want = append(want, "s"+strconv.Itoa(i), "s"+strconv.Itoa((i+79)%80))
			slices.Sort(want)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("project %s (%s): %v, want %v", p.ID, p.MethodCode, got, want)
		}
	}
}

// AppendKeys finds what Match finds, as the searches' keys: the key read
// from the store, else parsed from the id (in either case); a search whose
// id is not a UUID (never one from the store) is left out.
func TestAppendKeys(t *testing.T) {
	const upper = "A0000000-0000-4000-8000-00000000000B"
	stored, _ := domain.ParseSearchKey("a0000000-0000-4000-8000-00000000000a")
	saved := []domain.SavedCriteria{
		{ID: "a0000000-0000-4000-8000-00000000000a", Key: stored, SearchType: domain.SearchNormal, Form: domain.SearchForm{AllOf: []string{"ถนน"}}},
		{ID: upper, SearchType: domain.SearchNormal, Form: domain.SearchForm{AnyOf: []string{"ถนน", "สะพาน"}}},
		{ID: "s3", SearchType: domain.SearchNormal, Form: domain.SearchForm{AllOf: []string{"ถนน"}}},
		{ID: "a0000000-0000-4000-8000-00000000000c", SearchType: domain.SearchNormal, Form: domain.SearchForm{AllOf: []string{"ฝาย"}}},
	}
	p := domain.Project{ID: "p", Name: "ก่อสร้างถนนและสะพาน"}
	p.Derive()
	ix := domain.NewCriteriaIndex(saved)
	if got := ix.Match(&p); len(got) != 3 {
		t.Fatalf("Match: %d searches, want 3", len(got))
	}
	parsed, _ := domain.ParseSearchKey(upper)
	got := ix.AppendKeys(nil, &p)
	slices.SortFunc(got, func(a, b domain.SearchKey) int { return strings.Compare(a.String(), b.String()) })
	if want := []domain.SearchKey{stored, parsed}; !slices.Equal(got, want) {
		t.Fatalf("AppendKeys: %v, want %v", got, want)
	}
}
