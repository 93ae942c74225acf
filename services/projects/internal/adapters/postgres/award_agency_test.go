package postgres_test

import (
	"context"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	projectsv1 "bidradar/gen/projects/v1"
	"bidradar/services/projects/internal/adapters/eventproto"
	"bidradar/services/projects/internal/adapters/postgres"
	"bidradar/services/projects/internal/domain"
)

// TestCSVAwardKeepsTheFeedsAgencyCode: a contract CSV row carries agency
// names only; for a project the e-GP feed already gave (same project id)
// the award it publishes carries the feed's department codes, while a
// project known only from the CSV publishes none (docs/market.md#agency-codes).
func TestCSVAwardKeepsTheFeedsAgencyCode(t *testing.T) {
	pool, _ := setup(t)
	ctx := context.Background()
	repo := postgres.New(pool, eventproto.Encoder{}, postgres.Options{})
	d := time.Date(2025, 1, 17, 0, 0, 0, 0, domain.Bangkok)
	feed := domain.Project{ID: "68019000001", Name: "จ้างก่อสร้างถนน", AgencyCode: "0701", AgencyName: "กรมชลประทาน",
		SubAgencyCode: "070112", SubAgencyName: "โครงการชลประทานขอนแก่น", MethodCode: "16", Source: "egp",
		Announcements: []domain.Announcement{{Type: domain.AnnInvitation, Date: d}}}
	csvRow := func(id string) domain.Project { // as opendatacsv maps a row: names, no codes
		return domain.Project{ID: id, Name: "จ้างก่อสร้างถนน", AgencyName: "กรมชลประทาน", SubAgencyName: "โครงการชลประทานขอนแก่น",
			ReferencePrice: domain.MoneyPtr(100_000_00), AgreedPrice: domain.MoneyPtr(95_000_00), WinnerName: "บริษัท ทดสอบ จำกัด",
			WinnerTaxID: "0105560000006", Source: "csv", Announcements: []domain.Announcement{{Type: domain.AnnWinner, Date: d.AddDate(0, 1, 0)}}}
	}
	now := time.Now()
	if _, err := repo.Upsert(ctx, 1, []domain.Project{feed}, now); err != nil {
		t.Fatal(err)
	}
	if _, err := repo.Upsert(ctx, 2, []domain.Project{csvRow(feed.ID), csvRow("68019000002")}, now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	codes := map[string][2]string{}
	for _, e := range storedOn(t, pool, &projectsv1.AwardRecorded{}) {
		var a projectsv1.AwardRecorded
		if err := proto.Unmarshal(e.Payload, &a); err != nil {
			t.Fatal(err)
		}
		codes[a.GetProjectId()] = [2]string{a.GetDeptCode(), a.GetDeptSubCode()}
	}
	if len(codes) != 2 || codes[feed.ID] != [2]string{"0701", "070112"} || codes["68019000002"] != [2]string{"", ""} {
		t.Fatalf("award codes %v", codes)
	}
}
