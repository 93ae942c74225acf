package postgres_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"bidradar/services/projects/internal/adapters/postgres"
	"bidradar/services/projects/internal/demo"
	"bidradar/services/projects/internal/domain"
)

// A search page's rows hold what a result list shows, equal to the stored
// project's (Get) field by field, and of the announcements only the latest
// one with a link (domain.ResultPage).
func TestSearchRowsAsGet(t *testing.T) {
	pool, _ := setup(t)
	ctx := context.Background()
	g := demo.New(5, time.Date(2026, 9, 30, 0, 0, 0, 0, domain.Bangkok))
	var all []domain.Project
	for i := range 300 {
		p := g.Project(i)
		switch i % 3 { // links on some steps, not always on the last one
		case 0:
			for j := range p.Announcements {
				p.Announcements[j].Link = "https://process5.gprocurement.go.th/egp-agpc01-web/announcement?x=" + p.ID + "&s=" + string(rune('a'+j))
			}
			if n := len(p.Announcements); n > 1 {
				p.Announcements[n-1].Link = ""
			}
		case 1:
			for j := range p.Announcements {
				p.Announcements[j].Link = ""
			}
		}
		p.Derive()
		all = append(all, p)
	}
	repo := postgres.New(pool, nil, postgres.Options{})
	if _, err := repo.Upsert(ctx, 0, all, time.Now()); err != nil {
		t.Fatal(err)
	}
	seen, linked := 0, 0
	for _, c := range []domain.Criteria{{}, {Keyword: "ซื้อ"}, {Keyword: "ก่อสร้าง", Sort: domain.SortBudget}, {Sort: domain.SortDeadline, Today: time.Date(2026, 9, 20, 0, 0, 0, 0, domain.Bangkok)}} {
		for page := 1; page <= 3; page++ {
			res, err := repo.Search(ctx, c, domain.PageRequest{Page: page, PerPage: 20})
			if err != nil {
				t.Fatal(err)
			}
			for _, got := range res.Items {
				want, err := repo.Get(ctx, got.ID)
				if err != nil {
					t.Fatal(err)
				}
				var link []domain.Announcement
				for i := len(want.Announcements) - 1; i >= 0; i-- {
					if l := want.Announcements[i].Link; l != "" {
						link = []domain.Announcement{{Link: l}}
						linked++
						break
					}
				}
				listed := domain.Project{
					ID: want.ID, Name: want.Name, SearchText: want.SearchText, AgencyCode: want.AgencyCode, AgencyName: want.AgencyName,
					SubAgencyName: want.SubAgencyName, MinistryCode: want.MinistryCode, MinistryName: want.MinistryName,
					ProvinceCode: want.ProvinceCode, MethodCode: want.MethodCode, MethodName: want.MethodName,
					WorkTypeCode: want.WorkTypeCode, WorkTypeName: want.WorkTypeName, Budget: want.Budget,
					ReferencePrice: want.ReferencePrice, AgreedPrice: want.AgreedPrice, BudgetYear: want.BudgetYear,
					Status: want.Status, LastAnnounced: want.LastAnnounced, LastAnnounceTyp: want.LastAnnounceTyp,
					WinnerName: want.WinnerName, SubmissionDue: want.SubmissionDue, HearingDue: want.HearingDue, Announcements: link,
				}
				if !reflect.DeepEqual(got, listed) {
					t.Fatalf("criteria %+v: listed row\n%+v\nwant\n%+v", c, got, listed)
				}
				seen++
			}
		}
	}
	if seen < 100 || linked == 0 {
		t.Fatalf("checked %d rows (%d with a link): the criteria found too few", seen, linked)
	}
}
