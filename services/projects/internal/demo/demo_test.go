package demo_test

import (
	"strings"
	"testing"
	"time"

	"bidradar/services/projects/internal/demo"
	"bidradar/services/projects/internal/domain"
)

func TestDeterministicAndValid(t *testing.T) {
	t.Parallel()
	end := time.Date(2026, 9, 30, 0, 0, 0, 0, domain.Bangkok)
	g1, g2 := demo.New(7, end), demo.New(7, end)
	ids := map[string]bool{}
	thai := 0
	statuses := map[domain.Status]int{}
	for i := 0; i < 5000; i++ {
		a, b := g1.Project(i), g2.Project(i)
		if a.Name != b.Name || a.ID != b.ID || *a.Budget != *b.Budget {
			t.Fatalf("row %d not deterministic", i)
		}
		if err := a.CheckID(); err != nil || ids[a.ID] {
			t.Fatalf("row %d id %q dup=%v err=%v", i, a.ID, ids[a.ID], err)
		}
		ids[a.ID] = true
		if strings.ContainsAny(a.Name, "๐๑๒๓๔๕๖๗๘๙") {
			thai++
		}
		if a.ProvinceCode == "" || a.MethodCode == "" || len(a.Announcements) == 0 || a.SearchText == "" || a.BudgetYear < 2560 {
			t.Fatalf("row %d incomplete %+v", i, a)
		}
		statuses[a.Status]++
	}
	if thai < 500 || len(statuses) < 6 {
		t.Fatalf("thai digits in %d titles, statuses %v", thai, statuses)
	}
	t.Logf("statuses %v; sample: %s", statuses, g1.Project(3).Name)
}
