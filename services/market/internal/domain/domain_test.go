package domain_test

import (
	"math"
	"testing"

	"bidradar/services/market/internal/domain"
)

func TestTaxIDs(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in      string
		damaged bool
		want    domain.TaxIDState
		id      string
	}{
		// sum 0×13+1×12+0×11+5×10+5×9+5×8+9×7+0+0+0+1×3+2×2 = 217; 217 mod 11 = 8; 11 − 8 = 3.
		{"0105559000123", false, domain.TaxIDValid, "0105559000123"},
		{"0-1055-59000-12-3", false, domain.TaxIDValid, "0105559000123"},
		{" 0994000165501 ", false, domain.TaxIDValid, "0994000165501"}, // sum 318, mod 11 = 10, check 1
		{"1000000000131", false, domain.TaxIDValid, "1000000000131"},   // sum 22, mod 11 = 0: (11 − 0) mod 10 = 1
		{"1000000000050", false, domain.TaxIDValid, "1000000000050"},   // sum 23, mod 11 = 1: 10 mod 10 = 0
		{"0105559000124", false, domain.TaxIDInvalid, ""},              // failed check digit
		{"010555900012", false, domain.TaxIDInvalid, ""},               // 12 digits
		{"01055590001234", false, domain.TaxIDInvalid, ""},             // 14 digits
		{"010555900012X", false, domain.TaxIDInvalid, ""},
		{"1.05559E+11", false, domain.TaxIDDamaged, ""}, // Excel's exponent form
		{"1.05559e+12", false, domain.TaxIDDamaged, ""},
		{"3.10100E+12", false, domain.TaxIDDamaged, ""},
		{"0105559000123", true, domain.TaxIDDamaged, ""}, // the import flagged it
		{"", false, domain.TaxIDMissing, ""},
		{"   ", false, domain.TaxIDMissing, ""},
	} {
		st, id := domain.ClassifyTaxID(tt.in, tt.damaged)
		if st != tt.want || id != tt.id {
			t.Errorf("ClassifyTaxID(%q, %v) = %v %q, want %v %q", tt.in, tt.damaged, st, id, tt.want, tt.id)
		}
	}
	if _, err := domain.ParseTaxID("1.05559E+11"); err == nil {
		t.Error("a damaged id parsed as a request's tax id")
	}
}

func TestDamagedWinnersAreGroupedByName(t *testing.T) {
	t.Parallel()
	a := domain.NewWinner("บริษัท ก่อสร้างไทย จำกัด", "1.05559E+11", false, "", nil)
	b := domain.NewWinner("บริษัท  ก่อสร้างไทย จำกัด ", "1.05559E+11", false, "", nil)
	c := domain.NewWinner("บริษัท ก่อสร้างไทย จำกัด", "0105559000123", false, "", nil)
	if a.TaxID != "" || !a.TaxIDDamaged || a.TaxIDPublished != "1.05559E+11" {
		t.Fatalf("damaged id kept as identity or not as published: %+v", a)
	}
	if a.Key() != b.Key() {
		t.Errorf("same normalised name, keys %q and %q", a.Key(), b.Key())
	}
	if a.Key() == c.Key() || c.Key() != "T0105559000123" {
		t.Errorf("valid id not the identity: %q vs %q", a.Key(), c.Key())
	}
}

func f(v float64) *float64 { return &v }

func eq(a, b *float64) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func TestDiscounts(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		ref, agreed int64
		want        float64
		ok          bool
	}{
		{100_000_00, 90_000_00, 10, true},
		{100_000_00, 110_000_00, -10, true}, // agreed above the reference: negative
		{100_000_00, 100_000_00, 0, true},
		{0, 90_000_00, 0, false},
		{100_000_00, 0, 0, false},
		{-5, 3, 0, false},
		{300_000, 299_999, 1.0 / 300_000 * 100, true},
	} {
		d, ok := domain.Discount(tt.ref, tt.agreed)
		if ok != tt.ok || (ok && math.Abs(d-tt.want) > 1e-12) {
			t.Errorf("Discount(%d, %d) = %v %v, want %v %v", tt.ref, tt.agreed, d, ok, tt.want, tt.ok)
		}
	}
}

func TestRound2AsPostgres(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want float64 }{
		{2.675, 2.68}, // 2.67499999999999982236431605997495353221893310546875 as a double, 2.675 to 15 digits
		{-1.005, -1.01},
		{1.004999, 1},
		{-0.001, 0}, // -0 in PostgreSQL's numeric is 0
		{12.344999999999999, 12.35},
		{33.333333333333336, 33.33},
	} {
		if got := domain.Round2(tt.in); got != tt.want {
			t.Errorf("Round2(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestPercentilesInterpolate(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		in   []float64
		want domain.Stats
	}{
		// n = 4: positions 0.3, 0.75, 1.5, 2.25, 2.7 between 10 20 30 40.
		{"four", []float64{40, 10, 30, 20}, domain.Stats{P10: f(13), P25: f(17.5), P50: f(25), P75: f(32.5), P90: f(37), Mean: f(25)}},
		{"one", []float64{7.125}, domain.Stats{P10: f(7.13), P25: f(7.13), P50: f(7.13), P75: f(7.13), P90: f(7.13), Mean: f(7.13)}},
		// A negative discount (agreed above the reference) counts as it is.
		{"negative", []float64{-10, 5}, domain.Stats{P10: f(-8.5), P25: f(-6.25), P50: f(-2.5), P75: f(1.25), P90: f(3.5), Mean: f(-2.5)}},
		// n = 3: p10 at 0.2 → 1 + 0.2 × (2 − 1) = 1.2; p90 at 1.8 → 2 + 0.8 × (10 − 2) = 8.4; mean 13/3.
		{"uneven", []float64{1, 2, 10}, domain.Stats{P10: f(1.2), P25: f(1.5), P50: f(2), P75: f(6), P90: f(8.4), Mean: f(4.33)}},
		{"empty", nil, domain.Stats{}},
	} {
		got := domain.ComputeStats(tt.in)
		if !eq(got.P10, tt.want.P10) || !eq(got.P25, tt.want.P25) || !eq(got.P50, tt.want.P50) ||
			!eq(got.P75, tt.want.P75) || !eq(got.P90, tt.want.P90) || !eq(got.Mean, tt.want.Mean) {
			t.Errorf("%s: got %v %v %v %v %v %v", tt.name, ptr(got.P10), ptr(got.P25), ptr(got.P50), ptr(got.P75), ptr(got.P90), ptr(got.Mean))
		}
	}
}

func ptr(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestPercentRankIsTheShareStrictlyBelow(t *testing.T) {
	t.Parallel()
	group := []float64{10, 20, 20, 30}
	for _, tt := range []struct{ d, want float64 }{
		{5, 0}, {10, 0}, {15, 0.25}, {20, 0.25}, {25, 0.75}, {30, 0.75}, {35, 1}, {-3, 0},
	} {
		if got := domain.PercentRank(group, tt.d); got != tt.want {
			t.Errorf("PercentRank(%v) = %v, want %v", tt.d, got, tt.want)
		}
	}
	if domain.PercentRank(nil, 3) != 0 {
		t.Error("empty group")
	}
}

func TestHistogram(t *testing.T) {
	t.Parallel()
	got := domain.Histogram([]float64{-12.5, -0.1, 0, 4.99, 5, 99.9, 12})
	want := []domain.Bin{{From: -13, To: 0, Count: 2}, {From: 0, To: 5, Count: 2}, {From: 5, To: 10, Count: 1},
		{From: 10, To: 15, Count: 1}, {From: 95, To: 100, Count: 1}}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("bin %d: %v, want %v", i, got[i], want[i])
		}
	}
}

func TestFilterParsing(t *testing.T) {
	t.Parallel()
	bad := []domain.RawFilter{
		{BudgetYears: []string{"2024"}},
		{BudgetYears: []string{"x"}},
		{From: "31-12-2024"},
		{Depts: []string{"a b"}},
		{MinBudget: f(-1)},
		{MaxBudget: f(math.Inf(1))},
	}
	for _, r := range bad {
		if _, err := domain.ParseFilter(r); err == nil {
			t.Errorf("accepted %+v", r)
		}
	}
	got, err := domain.ParseFilter(domain.RawFilter{Keyword: " ถนน ", Or: []string{"คอนกรีต,ลาดยาง"}, BudgetYears: []string{"2568,2569"},
		From: "01/10/2567", MinBudget: f(100000.5)})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.And) != 1 || len(got.Or) != 2 || len(got.BudgetYears) != 2 || got.From.Year() != 2024 || *got.MinBudget != 10000050 {
		t.Errorf("parsed %+v", got)
	}
}
