package domain_test

import (
	"testing"
	"time"

	"bidradar/services/projects/internal/domain"
)

func TestFiscalYear(t *testing.T) {
	t.Parallel()
	tests := []struct {
		d    time.Time
		want int
	}{
		{domain.Date(2024, 9, 30), 2567},
		{domain.Date(2024, 10, 1), 2568},
		{time.Date(2024, 9, 30, 17, 30, 0, 0, time.UTC), 2568}, // 00:30 on 1 Oct in Bangkok
		{domain.Date(2026, 1, 1), 2569},
	}
	for _, tc := range tests {
		if got := domain.FiscalYear(tc.d); got != tc.want {
			t.Errorf("FiscalYear(%v) = %d, want %d", tc.d, got, tc.want)
		}
	}
}

func TestParseThaiDate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want time.Time
		ok   bool
	}{
		{"2022-08-04", domain.Date(2022, 8, 4), true},
		{"21 มิ.ย. 67", domain.Date(2024, 6, 21), true},
		{"15-ก.ย.-64", domain.Date(2021, 9, 15), true},
		{"17 ม.ค. 68", domain.Date(2025, 1, 17), true},
		{"31/03/2559", domain.Date(2016, 3, 31), true},
		{"1 ต.ค. 71", domain.Date(2028, 10, 1), true},
		{"๙ ตุลาคม ๒๕๖๙", domain.Date(2026, 10, 9), true},
		{"-", time.Time{}, false},
		{"", time.Time{}, false},
	}
	for _, tc := range tests {
		got, ok, err := domain.ParseThaiDate(tc.in)
		if err != nil || ok != tc.ok || !got.Equal(tc.want) {
			t.Errorf("ParseThaiDate(%q) = %v %v %v, want %v %v", tc.in, got, ok, err, tc.want, tc.ok)
		}
	}
	for _, bad := range []string{"31 ก.พ. 67", "xx", "12 foo 67"} {
		if _, _, err := domain.ParseThaiDate(bad); err == nil {
			t.Errorf("ParseThaiDate(%q): want error", bad)
		}
	}
}

func TestParseBaht(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want domain.Money
	}{
		{"1,234,567.00", 123456700},
		{"48735000.0", 4873500000},
		{"136,200.00 บาท", 13620000},
		{"๑๒๓", 12300},
		{"28759000000", 2875900000000},
		{"0.005", 1},
		{"1.5E+6", 150000000},
		{"-12.3", -1230},
		{"007.10", 710},
		{"1.999", 200},
		{"999999999999999.99", 99999999999999999},
	}
	for _, tc := range tests {
		got, err := domain.ParseBaht(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseBaht(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "-", "1.2.3", "12a", "1,2x"} {
		if _, err := domain.ParseBaht(bad); err == nil {
			t.Errorf("ParseBaht(%q) accepted", bad)
		}
	}
	if s := domain.Money(123456700).Baht(); s != "1,234,567.00" {
		t.Errorf("Baht() = %q", s)
	}
}

func TestStatusFromLatestStepNotTitle(t *testing.T) {
	t.Parallel()
	p := domain.Project{ID: "69099722203", Name: "ยกเลิกประกาศเชิญชวน ซื้อวัสดุ"}
	p.Announcements = []domain.Announcement{
		{Type: "D0", Date: domain.Date(2026, 9, 1)},
		{Type: "D1", Date: domain.Date(2026, 9, 3)},
	}
	p.Derive()
	if p.Status != domain.StatusCancelled {
		t.Fatalf("status %s", p.Status)
	}
	p.Announcements = append(p.Announcements, domain.Announcement{Type: "W0", Date: domain.Date(2026, 9, 3)})
	p.Derive()
	if p.Status != domain.StatusAwarded { // same day: lifecycle rank decides
		t.Fatalf("status %s", p.Status)
	}
	p.ContractNo = "กส.14/ทค./2567"
	p.Derive()
	if p.Status != domain.StatusContracted {
		t.Fatalf("status %s", p.Status)
	}
	if p.BudgetYear != 2569 {
		t.Fatalf("budget year %d", p.BudgetYear)
	}
}

func TestMergeIdempotent(t *testing.T) {
	t.Parallel()
	now := time.Now()
	obs := domain.Project{ID: "65087022299", Name: "ซื้อวัสดุ", Announcements: []domain.Announcement{
		{Type: "W2", Date: domain.Date(2022, 8, 4), Link: "http://x/y?projectId=65087022299&seqNo=1"},
		{Type: "W2", Date: domain.Date(2022, 8, 4), Link: "http://x/y?projectId=65087022299&seqNo=3"},
	}}
	p, changed, added := domain.Merge(nil, obs, now)
	if !changed || len(added) != 1 || len(p.Announcements) != 1 {
		t.Fatalf("first merge: changed=%v added=%d steps=%d", changed, len(added), len(p.Announcements))
	}
	p2, changed, added := domain.Merge(&p, obs, now.Add(time.Hour))
	if changed || len(added) != 0 || !p2.LastSeen.Equal(p.LastSeen) {
		t.Fatalf("second merge changed=%v added=%d", changed, len(added))
	}
	obs.Budget = domain.MoneyPtr(100)
	_, changed, _ = domain.Merge(&p2, obs, now)
	if !changed {
		t.Fatal("budget change not detected")
	}
}
