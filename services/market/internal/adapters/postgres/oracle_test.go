package postgres_test

import (
	"fmt"
	"sort"

	"bidradar/services/market/internal/domain"
)

// Oracle is the brute-force benchmark of a group's awards, from the
// definitions in Go (docs/market.md#definitions).
type Oracle []domain.Award

// Diff describes how got differs from the oracle ("" when equal).
func (o Oracle) Diff(got domain.Benchmark) string {
	var ds []float64
	years := map[int][]float64{}
	yearN := map[int]int{}
	type win struct {
		names       map[string]int
		tax         string
		wins, total int64
		ds          []float64
	}
	wins := map[string]*win{}
	for _, a := range o {
		d, ok := a.Discount()
		yearN[a.BudgetYear] += 0
		if ok {
			ds = append(ds, d)
			years[a.BudgetYear] = append(years[a.BudgetYear], d)
		}
		for _, w := range a.Winners {
			x := wins[w.Key()]
			if x == nil {
				x = &win{names: map[string]int{}, tax: w.TaxID}
				wins[w.Key()] = x
			}
			x.names[w.Name]++
			x.wins++
			if a.Agreed != nil {
				x.total += *a.Agreed
			}
			if ok {
				x.ds = append(x.ds, d)
			}
		}
	}
	if got.N != int64(len(ds)) || got.NWithoutReference != int64(len(o)-len(ds)) {
		return fmt.Sprintf("n %d/%d, want %d/%d", got.N, got.NWithoutReference, len(ds), len(o)-len(ds))
	}
	want := domain.ComputeStats(ds)
	if s := fmt.Sprint(deref(got.Stats.P10), deref(got.Stats.P25), deref(got.Stats.P50), deref(got.Stats.P75), deref(got.Stats.P90), deref(got.Stats.Mean)); s !=
		fmt.Sprint(deref(want.P10), deref(want.P25), deref(want.P50), deref(want.P75), deref(want.P90), deref(want.Mean)) {
		return "stats " + s + ", want " + fmt.Sprint(deref(want.P10), deref(want.P25), deref(want.P50), deref(want.P75), deref(want.P90), deref(want.Mean))
	}
	if fmt.Sprint(got.Histogram) != fmt.Sprint(domain.Histogram(ds)) {
		return fmt.Sprintf("histogram %v, want %v", got.Histogram, domain.Histogram(ds))
	}
	var ys []int
	for y := range yearN {
		ys = append(ys, y)
	}
	sort.Ints(ys)
	if len(ys) != len(got.ByYear) {
		return fmt.Sprintf("years %v, want %v", got.ByYear, ys)
	}
	for i, y := range ys {
		p := domain.ComputeStats(years[y]).P50
		if got.ByYear[i].Year != y || got.ByYear[i].N != int64(len(years[y])) || deref(got.ByYear[i].P50) != deref(p) {
			return fmt.Sprintf("year %d: %+v, want n %d p50 %v", y, got.ByYear[i], len(years[y]), deref(p))
		}
	}
	type top struct {
		tax, name   string
		wins, total int64
		p50         any
	}
	var tops []top
	for _, w := range wins {
		name, best := "", -1
		for n, c := range w.names {
			if c > best || (c == best && n < name) {
				name, best = n, c
			}
		}
		tops = append(tops, top{w.tax, name, w.wins, w.total, deref(domain.ComputeStats(w.ds).P50)})
	}
	sort.Slice(tops, func(i, j int) bool {
		if tops[i].wins != tops[j].wins {
			return tops[i].wins > tops[j].wins
		}
		if tops[i].total != tops[j].total {
			return tops[i].total > tops[j].total
		}
		return tops[i].name < tops[j].name
	})
	tops = tops[:min(10, len(tops))]
	if len(tops) != len(got.TopWinners) {
		return fmt.Sprintf("top winners %d, want %d", len(got.TopWinners), len(tops))
	}
	for i, w := range tops {
		g := got.TopWinners[i]
		if g.TaxID != w.tax || g.Name != w.name || g.Wins != w.wins || g.Total != w.total || deref(g.P50) != w.p50 {
			return fmt.Sprintf("top winner %d: %+v p50 %v, want %+v", i, g, deref(g.P50), w)
		}
	}
	return ""
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
