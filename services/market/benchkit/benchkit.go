// Package benchkit is a second assembly of the market service for
// bench/market only: generated awards, bulk loading, the Connect handler
// with every caller allowed, and the brute-force oracle (Oracle).
package benchkit

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"bidradar/gen/market/v1/marketv1connect"
	"bidradar/pkg/authn"
	"bidradar/pkg/thaitext"
	"bidradar/services/market/internal/adapters/postgres"
	"bidradar/services/market/internal/app"
	"bidradar/services/market/internal/domain"
	"bidradar/services/market/internal/ports"
	"bidradar/services/market/marketsvc"
)

// Award is domain.Award for the bench's main package.
type Award = domain.Award

// Open connects to url and migrates the market schema.
func Open(ctx context.Context, url string) (*pgxpool.Pool, error) { return marketsvc.Open(ctx, url) }

var (
	works  = []string{"ก่อสร้างถนนคอนกรีตเสริมเหล็ก", "ก่อสร้างถนนลาดยาง", "ซ่อมแซมถนนลูกรัง", "ขุดลอกคลอง", "ก่อสร้างรางระบายน้ำ", "ก่อสร้างอาคารเรียน", "เจาะบ่อบาดาล", "ก่อสร้างฝายชะลอน้ำ"}
	goods  = []string{"ซื้อวัสดุคอมพิวเตอร์", "ซื้อวัสดุสำนักงาน", "ซื้อครุภัณฑ์การแพทย์", "ซื้อน้ำมันเชื้อเพลิง", "ซื้ออาหารเสริม (นม) โรงเรียน", "ซื้อรถบรรทุกขยะ", "ซื้อกล้องวงจรปิด (CCTV)", "ซื้อเครื่องปรับอากาศ"}
	places = []string{"บ้านหนองบัว", "บ้านโนนสูง", "บ้านดอนแดง", "บ้านวังช้าง", "บ้านท่าทราย", "บ้านป่าไผ่", "บ้านนาคำ", "บ้านห้วยยาง"}
	method = []string{"19", "19", "19", "16", "16", "15", "18", "17", "22"}
)

// Generate returns n awards, a pure function of (seed, n): 300 agencies
// (5 sub-agencies each), 9 methods, 6 categories, 77 provinces, 8 budget
// years, 20 000 suppliers with valid tax ids (a few busy ones: Zipf), 4 %
// damaged ids grouped by name, 3 % without a reference price, discounts
// from −10 % to 30 %.
func Generate(seed uint64, n int) []Award {
	out := make([]Award, n)
	r := rand.New(rand.NewPCG(seed, 7))
	zipf := rand.NewZipf(r, 1.2, 10, 19_999)
	for i := range out {
		dept := 1000 + r.IntN(300)
		typ := 1 + r.IntN(6)
		var name string
		if typ <= 3 {
			name = works[r.IntN(len(works))] + " " + places[r.IntN(len(places))] + " หมู่ที่ " + strconv.Itoa(1+r.IntN(15))
		} else {
			name = goods[r.IntN(len(goods))] + " จำนวน " + strconv.Itoa(1+r.IntN(40)) + " รายการ"
		}
		ref := int64(math.Round(math.Exp(math.Log(50_000)+r.Float64()*math.Log(2000)))) * 100
		disc := -0.10 + 0.40*math.Pow(r.Float64(), 1.5)
		agreed := int64(math.Round(float64(ref)*(1-disc)/100)) * 100
		a := Award{ProjectID: fmt.Sprintf("%011d", 60000000000+i), ProjectName: name,
			DeptCode: strconv.Itoa(dept), DeptName: "หน่วยงาน " + strconv.Itoa(dept),
			DeptSubCode: strconv.Itoa(dept) + strconv.Itoa(r.IntN(5)), DeptSubName: "หน่วยงานย่อย",
			ProvinceCode: fmt.Sprintf("%02d", 10+r.IntN(77)), MethodCode: method[r.IntN(len(method))],
			TypeCode: fmt.Sprintf("%02d", typ), BudgetYear: 2562 + r.IntN(8),
			Budget: ptr(ref + ref/10), Agreed: ptr(agreed)}
		if r.IntN(100) >= 3 {
			a.Reference = ptr(ref)
		}
		d := time.Date(a.BudgetYear-543-1, 10, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, r.IntN(365))
		a.AnnounceDate = &d
		k := int(zipf.Uint64())
		if r.IntN(100) < 4 {
			a.Winners = []domain.Winner{domain.NewWinner("ห้างหุ้นส่วนจำกัด รับเหมา "+strconv.Itoa(k%500), "1.0555"+strconv.Itoa(k%10)+"E+11", false, "", nil)}
		} else {
			a.Winners = []domain.Winner{domain.NewWinner("บริษัท ผู้ค้า "+strconv.Itoa(k)+" จำกัด", TaxID(k), false, "", nil)}
		}
		out[i] = a
	}
	return out
}

func ptr(v int64) *int64 { return &v }

// TaxID is supplier k's id: 12 digits and their check digit.
func TaxID(k int) string {
	d := fmt.Sprintf("%012d", 10555000000+k)
	return d + string(domain.CheckDigit(d))
}

// Load writes the awards with COPY, then the suppliers and every rollup (as
// the refresh job would after an import), and analyzes.
func Load(ctx context.Context, pool *pgxpool.Pool, awards []Award, log func(string)) error {
	for _, t := range []string{"award_winners", "awards", "suppliers", "rollups", "rollup_dirty", "dirty_suppliers"} {
		if _, err := pool.Exec(ctx, "TRUNCATE "+t+" CASCADE"); err != nil {
			return err
		}
	}
	_, err := pool.CopyFrom(ctx, pgx.Identifier{"awards"}, []string{"project_id", "project_name", "search_text", "trigrams",
		"dept_code", "dept_name", "dept_sub_code", "dept_sub_name", "province_code", "method_code", "type_code", "budget_year",
		"budget_satang", "reference_satang", "agreed_satang", "discount_pct", "announce_date", "content_key",
		"winner_keys", "winner_tax_ids", "winner_names"},
		pgx.CopyFromSlice(len(awards), func(i int) ([]any, error) {
			a := awards[i]
			s := thaitext.Normalize(a.ProjectName)
			var d any
			if v, ok := a.Discount(); ok {
				d = v
			}
			wk, wt, wn := postgres.WinnerArrays(a.Winners)
			return []any{a.ProjectID, a.ProjectName, s, thaitext.Trigrams(s), a.DeptCode, a.DeptName, a.DeptSubCode, a.DeptSubName,
				a.ProvinceCode, a.MethodCode, a.TypeCode, a.BudgetYear, a.Budget, a.Reference, a.Agreed, d, *a.AnnounceDate, "bench",
				wk, wt, wn}, nil
		}))
	if err != nil {
		return fmt.Errorf("copy awards: %w", err)
	}
	log("awards copied")
	_, err = pool.CopyFrom(ctx, pgx.Identifier{"award_winners"}, []string{"project_id", "seq", "name", "name_key",
		"tax_id_published", "tax_id_damaged", "tax_id", "winner_key"},
		pgx.CopyFromSlice(len(awards), func(i int) ([]any, error) {
			w := awards[i].Winners[0]
			var tax any
			if w.TaxID != "" {
				tax = w.TaxID
			}
			return []any{awards[i].ProjectID, 0, w.Name, domain.NameKey(w.Name), w.TaxIDPublished, w.TaxIDDamaged, tax, w.Key()}, nil
		}))
	if err != nil {
		return fmt.Errorf("copy winners: %w", err)
	}
	for _, q := range []string{`ANALYZE awards`, `ANALYZE award_winners`,
		`INSERT INTO dirty_suppliers SELECT DISTINCT winner_key FROM award_winners`,
		`INSERT INTO rollup_dirty (dims, key) SELECT DISTINCT d.dims, d.key FROM awards a, LATERAL (VALUES
			('', ''), ('d', a.dept_code), ('m', a.method_code), ('t', a.type_code),
			('mt', a.method_code || E'\x1f' || a.type_code)) d(dims, key)`} {
		if _, err := pool.Exec(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q[:20], err)
		}
	}
	log("winners copied, rollups marked")
	return Refresh(ctx, pool, log)
}

// Refresh runs the service's refresh job until nothing is stale (the
// suppliers, the rollups, the busy suppliers' profiles), then vacuums and analyzes: a
// load stopped during its refresh resumes here.
func Refresh(ctx context.Context, pool *pgxpool.Pool, log func(string)) error {
	s := postgres.New(pool)
	for i := 0; ; i++ {
		var left int
		if err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM rollup_dirty) + (SELECT count(*) FROM dirty_suppliers) +
			(SELECT count(*) FROM suppliers WHERE profile IS NULL AND tax_id IS NOT NULL AND wins >= $1)`, postgres.ProfileMinWins).Scan(&left); err != nil {
			return err
		}
		if left == 0 {
			break
		}
		if i%20 == 0 {
			log(fmt.Sprintf("rollups left %d", left))
		}
		if err := s.RefreshRollups(ctx); err != nil {
			return err
		}
	}
	_, err := pool.Exec(ctx, `VACUUM (ANALYZE)`) // as autovacuum would after a bulk load: the visibility map lets index-only scans skip the heap
	return err
}

// Handler is the market's Connect handler with every caller signed in on
// the enterprise tier, and the projects of awards for the price guide.
func Handler(pool *pgxpool.Pool, awards []Award) http.Handler {
	byID := make(map[string]*Award, len(awards))
	for i := range awards {
		byID[awards[i].ProjectID] = &awards[i]
	}
	a := app.New(postgres.New(pool), allPlans{}, projects(byID), nil)
	mux := http.NewServeMux()
	mux.Handle(marketv1connect.NewMarketServiceHandler(ports.NewHandler(a)))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mux.ServeHTTP(w, r.WithContext(authn.WithClaims(r.Context(), authn.Claims{UserID: "bench"})))
	})
}

type allPlans struct{}

func (allPlans) Plan(context.Context, string) (domain.Plan, error) {
	return domain.Plan{Tier: "enterprise", Benchmarks: true, Profiles: true, WatchlistSize: 200}, nil
}

type projects map[string]*Award

func (p projects) Project(_ context.Context, id string) (domain.ProjectInfo, bool, error) {
	a, ok := p[id]
	if !ok {
		return domain.ProjectInfo{}, false, nil
	}
	return domain.ProjectInfo{ID: a.ProjectID, Name: a.ProjectName, DeptCode: a.DeptCode, MethodCode: a.MethodCode,
		TypeCode: a.TypeCode, Reference: a.Reference, Budget: a.Budget}, true, nil
}

// The definitions and result types, for the bench's oracle.
type (
	// Benchmark is domain.Benchmark.
	Benchmark = domain.Benchmark
	// Bin is domain.Bin.
	Bin = domain.Bin
	// YearStat is domain.YearStat.
	YearStat = domain.YearStat
	// WinnerStat is domain.WinnerStat.
	WinnerStat = domain.WinnerStat
)

var (
	// ComputeStats is domain.ComputeStats.
	ComputeStats = domain.ComputeStats
	// Discount is domain.Discount.
	Discount = domain.Discount
	// Round2 is domain.Round2.
	Round2 = domain.Round2
	// PercentRank is domain.PercentRank.
	PercentRank = domain.PercentRank
)
