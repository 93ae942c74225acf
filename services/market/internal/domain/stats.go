package domain

import (
	"math"
	"math/big"
	"sort"
	"strconv"
)

// Discount is (reference − agreed) ÷ reference × 100 for both prices > 0
// (satang), negative when the agreed price is higher; ok is false otherwise
// (docs/market.md#definitions). The market stores it computed so.
func Discount(referenceSatang, agreedSatang int64) (float64, bool) {
	if referenceSatang <= 0 || agreedSatang <= 0 {
		return 0, false
	}
	return float64(referenceSatang-agreedSatang) / float64(referenceSatang) * 100, true
}

// Round2 rounds as PostgreSQL's round(x::numeric, 2) does: the double read
// with 15 significant digits, then half away from zero.
func Round2(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	r, ok := new(big.Rat).SetString(strconv.FormatFloat(x, 'e', 14, 64))
	if !ok {
		return x
	}
	r.Mul(r, big.NewRat(100, 1))
	neg := r.Sign() < 0
	r.Abs(r)
	r.Add(r, big.NewRat(1, 2))
	q := new(big.Int).Quo(r.Num(), r.Denom())
	if neg {
		q.Neg(q)
	}
	f, _ := new(big.Rat).SetFrac(q, big.NewInt(100)).Float64()
	return f
}

// PercentileCont is PostgreSQL's percentile_cont(f) over sorted values:
// linear interpolation between the order statistics around (n − 1) × f.
func PercentileCont(sorted []float64, f float64) (float64, bool) {
	n := len(sorted)
	if n == 0 {
		return 0, false
	}
	pos := f * float64(n-1)
	lo := math.Floor(pos)
	hi := math.Ceil(pos)
	first := sorted[int(lo)]
	if lo == hi {
		return first, true
	}
	second := sorted[int(hi)]
	return first + (pos-lo)*(second-first), true
}

// PercentRank is PostgreSQL's hypothetical-set percent_rank(d) over the
// group: the share of values strictly below d (count ÷ n; 0 for an empty group).
func PercentRank(sorted []float64, d float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	below := sort.SearchFloat64s(sorted, d) // first index with value >= d
	return float64(below) / float64(len(sorted))
}

// Percentiles are the fractions a benchmark reports.
var Percentiles = []float64{0.1, 0.25, 0.5, 0.75, 0.9}

// Stats are the discount statistics of a group, rounded (nil when n is 0).
type Stats struct {
	P10, P25, P50, P75, P90, Mean *float64
}

// ComputeStats is the definition over a group's discounts (any order): the
// oracle the tests and bench/market check the SQL against.
func ComputeStats(discounts []float64) Stats {
	s := append([]float64(nil), discounts...)
	sort.Float64s(s)
	if len(s) == 0 {
		return Stats{}
	}
	ps := make([]*float64, len(Percentiles))
	for i, f := range Percentiles {
		v, _ := PercentileCont(s, f)
		v = Round2(v)
		ps[i] = &v
	}
	sum := 0.0
	for _, v := range s {
		sum += v
	}
	mean := Round2(sum / float64(len(s)))
	return Stats{P10: ps[0], P25: ps[1], P50: ps[2], P75: ps[3], P90: ps[4], Mean: &mean}
}

// Bin is one histogram bin: the discounts in [From, To) (the last bin, to 100, includes 100).
type Bin struct {
	From, To float64
	Count    int64
}

// HistogramBinWidth is the width of a bin, percentage points.
const HistogramBinWidth = 5

// Histogram bins discounts (docs/market.md#definitions): 5 points wide from 0
// to 100, the negative ones in one bin from the lowest (floored) to 0; bins
// without a discount are left out.
func Histogram(discounts []float64) []Bin {
	var neg int64
	low := 0.0
	counts := make([]int64, 100/HistogramBinWidth)
	for _, d := range discounts {
		if d < 0 {
			neg++
			low = math.Min(low, math.Floor(d))
			continue
		}
		counts[min(int(math.Floor(d/HistogramBinWidth)), len(counts)-1)]++
	}
	var out []Bin
	if neg > 0 {
		out = append(out, Bin{From: low, To: 0, Count: neg})
	}
	for i, c := range counts {
		if c > 0 {
			out = append(out, Bin{From: float64(i * HistogramBinWidth), To: float64((i + 1) * HistogramBinWidth), Count: c})
		}
	}
	return out
}
