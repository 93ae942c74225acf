package postgres_test

import (
	"context"
	"encoding/base64"
	"errors"
	"slices"
	"testing"
	"time"

	"bidradar/services/projects/internal/adapters/postgres"
	"bidradar/services/projects/internal/domain"
)

// The deadline order and filters on hand-made rows, under every plan
// policy: upcoming deadlines soonest first (same day by id), then the rest
// (passed, none) in date order; closing within N days and a date range of
// deadlines; cursors that cross from the first part into the second.
func TestSearchDeadlineOrderAndFilters(t *testing.T) {
	pool, _ := setup(t)
	ctx := context.Background()
	today := domain.Date(2026, 11, 28)
	day := func(n int) *time.Time { d := today.AddDate(0, 0, n); return &d }
	type row struct {
		id  string
		due *time.Time
		ann int // announced, days from today
	}
	rows := []row{
		{"69110000001", day(0), -10},   // closes today: still open
		{"69110000002", day(3), -5},    //
		{"69110000003", day(3), -20},   // same day as 002: the id breaks the tie, ascending
		{"69110000004", day(6), -1},    // the last day of "this week"
		{"69110000005", day(7), -2},    // the day after
		{"69110000006", day(40), -3},   //
		{"69110000007", day(-1), -1},   // closed yesterday: second part
		{"69110000008", nil, 0},        // no deadline, newest announcement
		{"69110000009", nil, -30},      //
		{"69110000010", day(-100), -9}, //
	}
	var ps []domain.Project
	for _, r := range rows {
		p := domain.Project{ID: r.id, Name: "ก่อสร้างถนนคอนกรีต หมู่ " + r.id[9:], ProvinceCode: "10", MethodCode: "16",
			Announcements: []domain.Announcement{{Type: "D0", Date: today.AddDate(0, 0, r.ann)}}, SubmissionDue: r.due}
		p.Derive()
		ps = append(ps, p)
	}
	repo := postgres.New(pool, nil, postgres.Options{TotalCap: 1 << 30, SampleSize: 1000})
	if _, err := repo.Upsert(ctx, 0, ps, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, "ANALYZE projects"); err != nil {
		t.Fatal(err)
	}
	repos := map[string]*postgres.Repo{
		"auto":   repo,
		"walk":   postgres.New(pool, nil, postgres.Options{TotalCap: 1 << 30, ForcePlan: postgres.PlanWalk}),
		"bitmap": postgres.New(pool, nil, postgres.Options{TotalCap: 1 << 30, ForcePlan: postgres.PlanBitmap}),
		"filter": postgres.New(pool, nil, postgres.Options{TotalCap: 1 << 30, ForcePlan: postgres.PlanFilter}),
		"due":    postgres.New(pool, nil, postgres.Options{TotalCap: 1 << 30, ForcePlan: postgres.PlanDue}),
	}
	ids := func(s ...string) []string {
		for i := range s {
			s[i] = "691100000" + s[i]
		}
		return s
	}
	from, to := today.AddDate(0, 0, 3), today.AddDate(0, 0, 7)
	cases := []struct {
		name string
		c    domain.Criteria
		want []string
	}{
		{"deadline order", domain.Criteria{Sort: domain.SortDeadline, Today: today},
			ids("01", "02", "03", "04", "05", "06", "08", "07", "10", "09")},
		{"with a keyword", domain.Criteria{Keyword: "ถนน", Sort: domain.SortDeadline, Today: today},
			ids("01", "02", "03", "04", "05", "06", "08", "07", "10", "09")},
		{"closing this week, by deadline", domain.Criteria{ClosingWithin: 7, Sort: domain.SortDeadline, Today: today},
			ids("01", "02", "03", "04")},
		{"closing this week, by date", domain.Criteria{ClosingWithin: 7, Today: today},
			ids("04", "02", "01", "03")},
		{"closing today", domain.Criteria{ClosingWithin: 1, Today: today}, ids("01")},
		{"deadline range", domain.Criteria{DueFrom: &from, DueTo: &to, Sort: domain.SortDeadline, Today: today},
			ids("02", "03", "04", "05")},
		{"range and closing intersect", domain.Criteria{DueFrom: &from, ClosingWithin: 5, Today: today}, ids("02", "03")},
		{"passed range, by deadline", domain.Criteria{DueTo: day(-1), Sort: domain.SortDeadline, Today: today}, ids("07", "10")},
		{"with ids", domain.Criteria{ProjectIDs: ids("09", "05", "01"), Sort: domain.SortDeadline, Today: today}, ids("01", "05", "09")},
	}
	for _, tc := range cases {
		for name, rp := range repos {
			for _, per := range []int{1, 2, 3, 20} {
				var got []string
				after := ""
				total := -1
				for pg := 0; pg < 20; pg++ {
					res, err := rp.Search(ctx, tc.c, domain.PageRequest{PerPage: per, After: after})
					if err != nil {
						t.Fatalf("%s/%s: %v", tc.name, name, err)
					}
					if pg == 0 {
						total = res.Total
					}
					for _, p := range res.Items {
						got = append(got, p.ID)
					}
					if after = res.NextCursor; after == "" {
						break
					}
				}
				if !slices.Equal(got, tc.want) || total != len(tc.want) {
					t.Fatalf("%s/%s per %d: got %v (total %d), want %v", tc.name, name, per, got, total, tc.want)
				}
				// page numbers give the same rows
				var byNumber []string
				for pg := 1; (pg-1)*per < len(tc.want); pg++ {
					res, err := rp.Search(ctx, tc.c, domain.PageRequest{Page: pg, PerPage: per})
					if err != nil {
						t.Fatal(err)
					}
					for _, p := range res.Items {
						byNumber = append(byNumber, p.ID)
					}
				}
				if !slices.Equal(byNumber, tc.want) {
					t.Fatalf("%s/%s per %d by page number: got %v, want %v", tc.name, name, per, byNumber, tc.want)
				}
			}
		}
	}
	// Each row shows its deadline as stored.
	res, err := repo.Search(ctx, domain.Criteria{ProjectIDs: ids("02")}, domain.PageRequest{PerPage: 1})
	if err != nil || len(res.Items) != 1 || res.Items[0].SubmissionDue == nil || !domain.DateKey(*res.Items[0].SubmissionDue).Equal(domain.DateKey(*day(3))) {
		t.Fatalf("row 02: %+v, %v", res.Items, err)
	}
	// Bad input is a client error.
	for _, c := range []domain.Criteria{
		{ClosingWithin: 7},                 // no day to count from
		{Sort: domain.SortDeadline},        // idem
		{ClosingWithin: 367, Today: today}, // too far
		{DueFrom: day(5), DueTo: day(1)},   // reversed
	} {
		if _, err := repo.Search(ctx, c, domain.PageRequest{}); !errors.Is(err, domain.ErrInvalidCriteria) {
			t.Fatalf("%+v: %v, want invalid criteria", c, err)
		}
	}
	if _, err := repo.Search(ctx, domain.Criteria{Sort: domain.SortDeadline, Today: today}, domain.PageRequest{After: cursorWith(`{"u":"not a date","i":"69110000001"}`)}); !errors.Is(err, domain.ErrInvalidCriteria) {
		t.Fatalf("bad cursor date: %v", err)
	}
}

func cursorWith(js string) string { return base64.RawURLEncoding.EncodeToString([]byte(js)) }
