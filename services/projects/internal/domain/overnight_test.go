package domain_test

import (
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"bidradar/services/projects/internal/demo"
	"bidradar/services/projects/internal/domain"
)

func TestOvernightDay(t *testing.T) {
	for _, c := range []struct {
		name string
		now  time.Time
		day  string
		due  bool
	}{
		{"before 02:00 Bangkok", time.Date(2026, 11, 24, 18, 59, 0, 0, time.UTC), "2026-11-25", false},
		{"02:00 Bangkok", time.Date(2026, 11, 24, 19, 0, 0, 0, time.UTC), "2026-11-25", true},
		{"afternoon", time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC), "2026-11-25", true},
		{"late evening", time.Date(2026, 11, 25, 16, 30, 0, 0, time.UTC), "2026-11-25", true},
		{"new year in Bangkok first", time.Date(2026, 12, 31, 17, 30, 0, 0, time.UTC), "2027-01-01", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			day, due := domain.OvernightDay(c.now)
			if day.Format(time.DateOnly) != c.day || due != c.due {
				t.Fatalf("OvernightDay(%s) = %s %v, want %s %v", c.now, day.Format(time.DateOnly), due, c.day, c.due)
			}
		})
	}
}

func TestOvernightEventID(t *testing.T) {
	d1 := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	d2 := d1.AddDate(0, 0, 1)
	a := domain.OvernightEventID("c1", d1)
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	for _, c := range []struct {
		name string
		same bool
		b    string
	}{
		{"same search and day", true, domain.OvernightEventID("c1", d1)},
		{"next day", false, domain.OvernightEventID("c1", d2)},
		{"other search", false, domain.OvernightEventID("c2", d1)},
	} {
		if (a == c.b) != c.same || !uuid.MatchString(c.b) {
			t.Errorf("%s: %s vs %s", c.name, a, c.b)
		}
	}
}

// A run finds, for each overnight search, exactly the projects the search
// oracle (Matcher) finds, in the order added; normal searches take no part.
func TestOvernightRunAgreesWithMatcher(t *testing.T) {
	g := demo.New(3, time.Date(2026, 11, 1, 0, 0, 0, 0, domain.Bangkok))
	projects := make([]domain.Project, 300)
	for i := range projects {
		projects[i] = g.Project(i)
	}
	var saved []domain.SavedCriteria
	for i := range 80 {
		runes := []rune(projects[i].SearchText)
		f := domain.SearchForm{AllOf: []string{string(runes[:min(len(runes), 2+i%4)])}}
		if i%5 == 0 {
			f = domain.SearchForm{Provinces: []string{projects[i].ProvinceCode}}
		}
		kind := domain.SearchOvernight
		if i%4 == 0 {
			kind = domain.SearchNormal
		}
		saved = append(saved, domain.SavedCriteria{ID: "s" + strconv.Itoa(i), UserID: "u", SearchType: kind, Form: f})
	}
	day := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	run := domain.NewOvernightRun(saved, day)
	if run.Len() != 60 {
		t.Fatalf("run has %d searches, want the 60 overnight ones", run.Len())
	}
	for i := range projects {
		run.Add(&projects[i])
	}
	got := map[string][]string{}
	for _, d := range run.Digests() {
		if d.Day != day || d.Criteria.SearchType != domain.SearchOvernight || len(d.Projects) == 0 {
			t.Fatalf("digest %+v", d)
		}
		for _, p := range d.Projects {
			got[d.Criteria.ID] = append(got[d.Criteria.ID], p.ID)
		}
	}
	matched := 0
	for _, s := range saved {
		var want []string
		if s.SearchType == domain.SearchOvernight {
			m := domain.NewMatcher(s.Form.Criteria())
			for i := range projects {
				if m.Match(&projects[i]) {
					want = append(want, projects[i].ID)
				}
			}
		}
		if !slices.Equal(got[s.ID], want) {
			t.Fatalf("search %s (%s): run %v, oracle %v", s.ID, s.SearchType, got[s.ID], want)
		}
		matched += len(want)
	}
	if matched < 60 || run.Seen() != len(projects) {
		t.Fatalf("matched %d, seen %d: the test exercises too little", matched, run.Seen())
	}
}
