package domain_test

import (
	"testing"

	"bidradar/services/notification/internal/domain"
)

func TestBahtAndThaiDate(t *testing.T) {
	for satang, want := range map[int64]string{0: "0.00 บาท", 5: "0.05 บาท", 100000: "1,000.00 บาท", 450000050: "4,500,000.50 บาท", -12345: "-123.45 บาท"} {
		if got := domain.Baht(satang); got != want {
			t.Errorf("Baht(%d) = %q, want %q", satang, got, want)
		}
	}
	for in, want := range map[string]string{"2026-11-20": "20 พ.ย. 2569", "2027-01-01": "1 ม.ค. 2570", "soon": "soon", "": ""} {
		if got := domain.ThaiDate(in); got != want {
			t.Errorf("ThaiDate(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestClearFilterValidate(t *testing.T) {
	days := func(n int) *int { return &n }
	ok := []domain.ClearFilter{{}, {Archive: true, Category: "search_match", OlderThanDays: days(0)}, {IDs: []string{"11111111-1111-4111-8111-111111111111"}}}
	bad := []domain.ClearFilter{{Category: "spam"}, {OlderThanDays: days(-1)}, {OlderThanDays: days(4000)}, {IDs: []string{"1; DROP TABLE"}}, {IDs: make([]string, 1001)}}
	for _, f := range ok {
		if err := f.Validate(); err != nil {
			t.Errorf("%+v: %v", f, err)
		}
	}
	for _, f := range bad {
		if f.Validate() == nil {
			t.Errorf("%+v accepted", f)
		}
	}
}
