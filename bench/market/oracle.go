package main

import (
	"fmt"
	"math"
	"sort"

	"google.golang.org/protobuf/encoding/protojson"

	marketv1 "bidradar/gen/market/v1"
	"bidradar/services/market/benchkit"
)

func satang(baht float64) int64 { return int64(math.Round(baht * 100)) }

func opt(p *float64) *float64 { return p }

// toDomain reads the benchmark fields of an answer.
func toDomain(n, nw int32, st *marketv1.DiscountStats, hist []*marketv1.HistogramBin, years []*marketv1.BudgetYearStat, tops []*marketv1.Winner) benchkit.Benchmark {
	b := benchkit.Benchmark{N: int64(n), NWithoutReference: int64(nw)}
	b.Stats.P10, b.Stats.P25, b.Stats.P50, b.Stats.P75, b.Stats.P90, b.Stats.Mean = opt(st.P10), opt(st.P25), opt(st.P50), opt(st.P75), opt(st.P90), opt(st.Mean)
	for _, h := range hist {
		b.Histogram = append(b.Histogram, benchkit.Bin{From: h.FromPct, To: h.ToPct, Count: int64(h.Count)})
	}
	for _, y := range years {
		b.ByYear = append(b.ByYear, benchkit.YearStat{Year: int(y.BudgetYear), N: int64(y.N), P50: y.P50})
	}
	for _, w := range tops {
		b.TopWinners = append(b.TopWinners, benchkit.WinnerStat{TaxID: w.GetTaxId().GetValue(), Name: w.Name, Wins: int64(w.Wins),
			Total: satang(w.TotalBaht), P50: w.P50DiscountPct})
	}
	return b
}

func checkBenchmark(raw []byte, rows []benchkit.Award) error {
	var r marketv1.GetBenchmarksResponse
	if err := protojson.Unmarshal(raw, &r); err != nil {
		return err
	}
	if d := benchkit.Oracle(rows).Diff(toDomain(r.N, r.NWithoutReference, r.DiscountPct, r.Histogram, r.ByBudgetYear, r.TopWinners)); d != "" {
		return fmt.Errorf("%s", d)
	}
	return nil
}

func checkSupplier(raw []byte, id string, awards []benchkit.Award) error {
	var r marketv1.GetSupplierResponse
	if err := protojson.Unmarshal(raw, &r); err != nil {
		return err
	}
	var rows []benchkit.Award
	for _, a := range awards {
		if a.Winners[0].TaxID == id {
			rows = append(rows, a)
		}
	}
	var ds []float64
	var total int64
	years := map[int][]benchkit.Award{}
	for _, a := range rows {
		if d, ok := a.Discount(); ok {
			ds = append(ds, d)
		}
		total += *a.Agreed
		years[a.BudgetYear] = append(years[a.BudgetYear], a)
	}
	if int(r.Wins) != len(rows) || satang(r.TotalBaht) != total || fmt.Sprint(deref(r.P50DiscountPct)) != fmt.Sprint(deref(benchkit.ComputeStats(ds).P50)) {
		return fmt.Errorf("wins %d total %v p50 %v; want %d %d %v", r.Wins, r.TotalBaht, deref(r.P50DiscountPct), len(rows), total, deref(benchkit.ComputeStats(ds).P50))
	}
	if len(r.ByBudgetYear) != len(years) {
		return fmt.Errorf("%d years, want %d", len(r.ByBudgetYear), len(years))
	}
	for _, y := range r.ByBudgetYear {
		var yd []float64
		var yt int64
		for _, a := range years[int(y.BudgetYear)] {
			if d, ok := a.Discount(); ok {
				yd = append(yd, d)
			}
			yt += *a.Agreed
		}
		if int(y.Wins) != len(years[int(y.BudgetYear)]) || satang(y.TotalBaht) != yt || fmt.Sprint(deref(y.P50DiscountPct)) != fmt.Sprint(deref(benchkit.ComputeStats(yd).P50)) {
			return fmt.Errorf("year %d: %v", y.BudgetYear, y)
		}
	}
	sort.Slice(rows, func(i, j int) bool {
		if !rows[i].AnnounceDate.Equal(*rows[j].AnnounceDate) {
			return rows[i].AnnounceDate.After(*rows[j].AnnounceDate)
		}
		return rows[i].ProjectID > rows[j].ProjectID
	})
	for i, rc := range r.Recent {
		if rc.ProjectId != rows[i].ProjectID {
			return fmt.Errorf("recent %d: %s, want %s", i, rc.ProjectId, rows[i].ProjectID)
		}
	}
	return nil
}

func checkGuide(raw []byte, p benchkit.Award, bid float64, awards []benchkit.Award) error {
	var r marketv1.GetPriceGuideResponse
	if err := protojson.Unmarshal(raw, &r); err != nil {
		return err
	}
	groups := []struct {
		basis string
		keep  func(benchkit.Award) bool
	}{
		{"agency_method_category", func(a benchkit.Award) bool {
			return a.DeptCode == p.DeptCode && a.MethodCode == p.MethodCode && a.TypeCode == p.TypeCode
		}},
		{"agency_method", func(a benchkit.Award) bool { return a.DeptCode == p.DeptCode && a.MethodCode == p.MethodCode }},
		{"method_category", func(a benchkit.Award) bool { return a.MethodCode == p.MethodCode && a.TypeCode == p.TypeCode }},
		{"category", func(a benchkit.Award) bool { return a.TypeCode == p.TypeCode }},
	}
	for _, g := range groups {
		var rows []benchkit.Award
		var ds []float64
		for _, a := range awards {
			if g.keep(a) {
				rows = append(rows, a)
				if d, ok := a.Discount(); ok {
					ds = append(ds, d)
				}
			}
		}
		if len(ds) < 20 {
			continue
		}
		if r.Basis != g.basis {
			return fmt.Errorf("basis %s, want %s", r.Basis, g.basis)
		}
		if d := benchkit.Oracle(rows).Diff(toDomain(r.N, r.NWithoutReference, r.DiscountPct, r.Histogram, r.ByBudgetYear, r.TopWinners)); d != "" {
			return fmt.Errorf("%s", d)
		}
		ref := p.Reference
		if ref == nil {
			ref = p.Budget
		}
		d, _ := benchkit.Discount(*ref, satang(bid))
		sort.Float64s(ds)
		if r.Bid == nil || deref(r.Bid.DiscountPct) != benchkit.Round2(d) || deref(r.Bid.PercentileRank) != benchkit.Round2(benchkit.PercentRank(ds, d)*100) {
			return fmt.Errorf("bid %v, want discount %v rank %v", r.Bid, benchkit.Round2(d), benchkit.Round2(benchkit.PercentRank(ds, d)*100))
		}
		return nil
	}
	if r.Basis != "none" {
		return fmt.Errorf("basis %s, want none", r.Basis)
	}
	return nil
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
