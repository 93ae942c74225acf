package ocds_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"testing"
	"time"

	"bidradar/services/projects/internal/adapters/ocds"
	"bidradar/services/projects/internal/domain"
)

func TestImportWithNulls(t *testing.T) {
	t.Parallel()
	src := ocds.Source{Open: func() (io.ReadCloser, error) { return os.Open("testdata/release-package.json") }}
	var got []domain.Project
	var errs []domain.RecordError
	if err := src.Each(context.Background(), func(p domain.Project) error { got = append(got, p); return nil },
		func(e domain.RecordError) { errs = append(errs, e) }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || len(errs) != 1 {
		t.Fatalf("got %d errs %v", len(got), errs)
	}
	p, _, _ := domain.Merge(nil, got[0], time.Now())
	p, changed, added := domain.Merge(&p, got[1], time.Now())
	if !changed || len(added) != 1 {
		t.Fatalf("merge: changed %v added %d", changed, len(added))
	}
	if p.ID != "69099693138" || *p.Budget != 1250000050 || *p.ReferencePrice != 1200000000 || *p.AgreedPrice != 1180000000 {
		t.Fatalf("money %+v", p)
	}
	if p.MethodCode != "16" || p.WorkTypeCode != "02" || p.ProvinceCode != "10" || p.AgencyName != "สำนักการโยธา" || p.AgencyCode != "" { // TH-BMA-50 is no e-GP code
		t.Fatalf("codes %+v", p)
	}
	if p.WinnerTaxID != "0105552031234" || p.ContractNo != "สนย. 12/2570" || p.Status != domain.StatusContracted {
		t.Fatalf("winner/contract %+v", p)
	}
	if p.Name != "ประกวดราคาจ้างก่อสร้างถนนคอนกรีตเสริมเหล็ก ซอยสุขุมวิท ๑๐๓" || p.BudgetYear != 2570 {
		t.Fatalf("name %q fy %d", p.Name, p.BudgetYear)
	}
}

func TestExportRoundTrip(t *testing.T) {
	t.Parallel()
	p := domain.Project{
		ID: "69099722203", Name: "ซื้อน้ำมันเชื้อเพลิง", AgencyCode: "0304", AgencyName: "กรมบัญชีกลาง",
		ProvinceCode: "10", MethodCode: "16", Budget: domain.MoneyPtr(123456789), ReferencePrice: domain.MoneyPtr(100),
		AgreedPrice: domain.MoneyPtr(99), WinnerName: "บริษัท ก จำกัด", WinnerTaxID: "0105552031234",
		ContractNo: "1/2569", ContractSigned: ptr(domain.Date(2026, 9, 1)), ContractValue: domain.MoneyPtr(99),
		SubmissionDue: ptr(domain.Date(2026, 8, 15)), HearingDue: ptr(domain.Date(2026, 7, 30)),
		Announcements: []domain.Announcement{{Type: "D0", Date: domain.Date(2026, 8, 1), Link: "https://x/y"}, {Type: "W0", Date: domain.Date(2026, 8, 20)}},
		LastSeen:      time.Date(2026, 9, 2, 3, 0, 0, 0, time.UTC),
	}
	p.Derive()
	rel := ocds.FromProject(p, "")
	b, err := json.Marshal(ocds.NewPackage("https://x/p.json", time.Now(), []ocds.Release{rel}))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"amount":1234567.89`)) || !bytes.Contains(b, []byte(`"ocid":"ocds-bidradar-69099722203"`)) {
		t.Fatalf("%s", b)
	}
	var back []domain.Project
	if err := ocds.Decode(bytes.NewReader(b), func(r ocds.Release) error {
		q, err := ocds.ToProject(r)
		back = append(back, q)
		return err
	}, func(e domain.RecordError) { t.Fatal(e) }); err != nil {
		t.Fatal(err)
	}
	q := back[0]
	if q.ID != p.ID || *q.Budget != *p.Budget || *q.AgreedPrice != 99 || q.WinnerTaxID != p.WinnerTaxID || q.MethodCode != "16" || q.ProvinceCode != "10" ||
		q.AgencyCode != "0304" || q.AgencyName != "กรมบัญชีกลาง" {
		t.Fatalf("round trip %+v", q)
	}
	// The deadlines travel as the tender's tenderPeriod and enquiryPeriod end dates.
	if q.SubmissionDue == nil || !q.SubmissionDue.Equal(*p.SubmissionDue) || q.HearingDue == nil || !q.HearingDue.Equal(*p.HearingDue) {
		t.Fatalf("deadlines %v %v", q.SubmissionDue, q.HearingDue)
	}
}

func ptr[T any](v T) *T { return &v }
