package stack_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"math"
	"math/big"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"bidradar/pkg/testutil/eventually"
)

// The market's figures are checked against an oracle of this test's own:
// the projects' published rows (the projects schema, not the market's), the
// definitions of docs/market.md#definitions computed in Go.

type pubRow struct {
	id, name, dept, method, typ string
	year                        int
	ref, agreed                 int64 // satang, 0 missing
	winner, tax                 string
}

func publishedAwards(t *testing.T, db string) []pubRow {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(context.Background(), `SELECT id, name, agency_code, method_code, work_type_code, budget_year,
		coalesce((reference_price * 100)::bigint, 0), coalesce((agreed_price * 100)::bigint, 0), winner_name, winner_tax_id
		FROM projects.projects WHERE agreed_price IS NOT NULL OR winner_name <> '' OR winner_tax_id <> ''`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []pubRow
	for rows.Next() {
		var r pubRow
		if err := rows.Scan(&r.id, &r.name, &r.dept, &r.method, &r.typ, &r.year, &r.ref, &r.agreed, &r.winner, &r.tax); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

func (r pubRow) discount() (float64, bool) {
	if r.ref <= 0 || r.agreed <= 0 {
		return 0, false
	}
	return float64(r.ref-r.agreed) / float64(r.ref) * 100, true
}

// round2 is PostgreSQL's round(x::numeric, 2): 15 significant digits, half away from zero.
func round2(x float64) float64 {
	r, _ := new(big.Rat).SetString(strconv.FormatFloat(x, 'e', 14, 64))
	r.Mul(r, big.NewRat(100, 1))
	neg := r.Sign() < 0
	r.Abs(r).Add(r, big.NewRat(1, 2))
	q := new(big.Int).Quo(r.Num(), r.Denom())
	if neg {
		q.Neg(q)
	}
	f, _ := new(big.Rat).SetFrac(q, big.NewInt(100)).Float64()
	return f
}

func interp(s []float64, f float64) float64 {
	pos := f * float64(len(s)-1)
	lo, hi := math.Floor(pos), math.Ceil(pos)
	if lo == hi {
		return s[int(lo)]
	}
	return s[int(lo)] + (pos-lo)*(s[int(hi)]-s[int(lo)])
}

func num(v any) float64 {
	f, _ := v.(float64)
	return f
}

// checkBenchmark compares a benchmark answer with the oracle over rows.
func checkBenchmark(t *testing.T, what string, body map[string]any, rows []pubRow) {
	t.Helper()
	var ds []float64
	for _, r := range rows {
		if d, ok := r.discount(); ok {
			ds = append(ds, d)
		}
	}
	sort.Float64s(ds)
	if num(body["n"]) != float64(len(ds)) || num(body["n_without_reference"]) != float64(len(rows)-len(ds)) {
		t.Fatalf("%s: n %v n_without_reference %v, want %d %d", what, body["n"], body["n_without_reference"], len(ds), len(rows)-len(ds))
	}
	st, _ := body["discount_pct"].(map[string]any)
	if len(ds) == 0 {
		if st["p50"] != nil {
			t.Fatalf("%s: p50 %v without data", what, st["p50"])
		}
		return
	}
	for _, p := range []struct {
		key string
		f   float64
	}{{"p10", .1}, {"p25", .25}, {"p50", .5}, {"p75", .75}, {"p90", .9}} {
		if want := round2(interp(ds, p.f)); num(st[p.key]) != want {
			t.Errorf("%s: %s = %v, want %v", what, p.key, st[p.key], want)
		}
	}
	sum := 0.0
	for _, d := range ds {
		sum += d
	}
	if want := round2(sum / float64(len(ds))); math.Abs(num(st["mean"])-want) > 0.011 {
		t.Errorf("%s: mean %v, want %v", what, st["mean"], want)
	}
	var binned float64
	for _, b := range body["histogram"].([]any) {
		binned += num(b.(map[string]any)["count"])
	}
	if binned != float64(len(ds)) {
		t.Errorf("%s: histogram holds %v, want %d", what, binned, len(ds))
	}
}

// marketCSV is rows of the data.go.th contract CSV (the fixture's 32
// columns) for awards of one agency name, method and category.
func marketCSV(rows [][5]string) string {
	const header = "_id,ลำดับ,รหัสโครงการ,ชื่อโครงการ,ชื่อประเภทโครงการ,ชื่อหน่วยงาน,ชื่อหน่วยงานย่อย,วิธีจัดซื้อฯ,กลุ่มวิธีจัดซื้อฯ,วันที่ประกาศ,งบประมาณ(บาท),ราคากลาง(บาท),ราคาตกลงซื้อ/จ้าง,ปีงบประมาณ,วันที่เกิดรายการ,จังหวัด,จังหวัด (Eng),เขต/อำเภอ,เขต/อำเภอ (Eng),แขวง/ตำบล,แขวง/ตำบล (Eng),สถานะโครงการ,พิกัดของโครงการ,ละติจูดโครงการ,ลองจิจูดโครงการ,เลขนิติบุคคล,ชื่อผู้ชนะ,เลขที่สัญญา,วันที่ลงนามสัญญา,วันที่สิ้นสุดสัญญา,งบสัญญา(บาท),สถานะสัญญา\n"
	var b strings.Builder
	b.WriteString(header)
	for i, r := range rows { // id, name, reference, agreed, tax id + winner "|"
		w := strings.SplitN(r[4], "|", 2)
		fmt.Fprintf(&b, "%d,%d,%s,%s,จ้างก่อสร้าง,องค์การบริหารส่วนตำบลตลาดใหม่,-,เฉพาะเจาะจง,วิธีการจัดหา ประกาศเชิญชวนทั่วไป คัดเลือก เฉพาะเจาะจง,17 ม.ค. 68,%s,%s,%s,2568,-,ขอนแก่น,Khon Kaen,-,-,-,-,ระหว่างดำเนินการ,-,-,-,%s,%s,ส.%d/2568,1 ก.พ. 68,1 ต.ค. 68,%s,ระหว่างดำเนินการ\n",
			i+1, i+1, r[0], r[1], r[2], r[2], r[3], w[0], w[1], i+1, r[3])
	}
	return b.String()
}

// validTaxID makes a 13-digit id with its check digit (docs/market.md#tax-ids).
func validTaxID(n int) string {
	d := fmt.Sprintf("%012d", 10556000000+n)
	sum := 0
	for i := 0; i < 12; i++ {
		sum += int(d[i]-'0') * (13 - i)
	}
	return d + strconv.Itoa((11-sum%11)%10)
}

// TestMarketREST: benchmarks, the price guide with a bid, suppliers,
// agencies and the watchlist over REST, each figure against the oracle;
// the tiers (401, 403 upgrade_required, 409); a watched competitor's award
// reaching the bell once, a replayed import telling nothing.
func TestMarketREST(t *testing.T) {
	e := startStack(t, map[string]string{"ADMIN_EMAILS": "@ops.bidradar.test", "DEMO_DATA": "800", "MARKET_FLUSH_EVERY": "200ms"})
	admin := bearer(e.registerVerified("ops", "ops@ops.bidradar.test", "long enough pass").str("access_token"))
	free := bearer(e.registerVerified("fay", "fay@example.com", "long enough pass").str("access_token"))
	starter := bearer(e.registerVerified("sam", "sam@example.com", "long enough pass").str("access_token"))
	pro := bearer(e.registerVerified("pat", "pat@example.com", "long enough pass").str("access_token"))
	e.upgrade(starter, "starter")
	e.upgrade(pro, "pro")
	ingest := func(source, content string) {
		t.Helper()
		expect(t, e.call("POST", "/admin/ingest", map[string]string{"source": source, "content": base64.StdEncoding.EncodeToString([]byte(content))}, admin...), 200, "ingest "+source)
	}

	// Visitors 401; free 403 upgrade_required everywhere; starter only the benchmarks and the guide.
	paths := []string{"/market/benchmarks", "/projects/68017000001/price-guide", "/market/suppliers?q=abc",
		"/market/suppliers/0305560001659", "/market/agencies/0701", "/market/watchlist"}
	for _, p := range paths {
		expect(t, e.call("GET", p, nil), 401, "visitor "+p)
		expectReason(t, e.call("GET", p, nil, free...), 403, "permission_denied", "upgrade_required")
	}
	expectReason(t, e.call("POST", "/market/watchlist", map[string]string{"tax_id": "0305560001659"}, free...), 403, "permission_denied", "upgrade_required")
	expect(t, e.call("GET", "/market/benchmarks", nil, starter...), 200, "starter benchmarks")
	for _, p := range paths[2:] {
		expectReason(t, e.call("GET", p, nil, starter...), 403, "permission_denied", "upgrade_required")
	}

	// The watch comes before the import that records the competitor's award.
	const watched = "0305560001659" // the fixture's winner of 68017000001
	expect(t, e.call("POST", "/market/watchlist", map[string]string{"tax_id": watched}, pro...), 200, "watch")
	for _, bad := range []string{"1.05559E+11", "0305560001658", "12345", "abc"} {
		expectDetail(t, e.call("POST", "/market/watchlist", map[string]string{"tax_id": bad}, pro...), 400, "tax id")
		expectDetail(t, e.call("GET", "/market/suppliers/"+url.PathEscape(bad), nil, pro...), 400, "tax id")
	}

	// Real-format rows: the data.go.th contract CSV (an exponent-damaged
	// id, a valid one) and an OCDS package (an id failing its check digit).
	csvFixture, err := os.ReadFile("../services/projects/internal/adapters/opendatacsv/testdata/cgd-contract-sample.csv")
	if err != nil {
		t.Fatal(err)
	}
	ocdsFixture, err := os.ReadFile("../services/projects/internal/adapters/ocds/testdata/release-package.json")
	if err != nil {
		t.Fatal(err)
	}
	ingest("csv", string(csvFixture))
	ingest("ocds", string(ocdsFixture))
	var prof reply
	eventually.True(t, 30*time.Second, "the supplier's profile", func() bool {
		prof = e.call("GET", "/market/suppliers/"+watched, nil, pro...)
		return prof.Status == 200
	})
	names, _ := prof.Body["names"].([]any)
	recent, _ := prof.Body["recent"].([]any)
	if num(prof.Body["wins"]) != 1 || num(prof.Body["total_baht"]) != 1099000 || len(names) != 1 || names[0] != "ห้างหุ้นส่วนจำกัด ก่อสร้างดี" ||
		num(prof.Body["p50_discount_pct"]) != round2(float64(115000000-109900000)/115000000*100) || prof.Body["watched"] != true ||
		len(recent) != 1 || recent[0].(map[string]any)["project_id"] != "68017000001" {
		t.Fatalf("profile: %s", prof.Raw)
	}
	expectReason(t, e.call("GET", "/market/suppliers/"+validTaxID(999), nil, pro...), 404, "not_found", "supplier-not-found")

	// Damaged and failed ids are kept as published, never identity: their
	// winners are found by name with tax_id null.
	for _, q := range []string{"ตัวอย่าง", "ก่อสร้างไทย"} {
		var hits reply
		eventually.True(t, 30*time.Second, "supplier "+q, func() bool {
			hits = e.call("GET", "/market/suppliers?q="+url.QueryEscape(q), nil, pro...)
			return strings.Contains(hits.Raw, q)
		})
		if !strings.HasPrefix(strings.TrimSpace(hits.Raw), "[") || !strings.Contains(hits.Raw, `"tax_id":null`) {
			t.Fatalf("suppliers %s: %s", q, hits.Raw)
		}
	}
	expectDetail(t, e.call("GET", "/market/suppliers?q=x", nil, pro...), 400, "name")
	expectDetail(t, e.call("GET", "/market/suppliers/0105552031234", nil, pro...), 400, "tax id") // the OCDS id fails its check digit

	// The watcher's bell: the award, its winner and agreed price, once.
	competitor := func() []map[string]any {
		r := e.call("GET", "/bell/notifications?category=competitor_win&per_page=100", nil, pro...)
		expect(t, r, 200, "bell")
		var out []map[string]any
		for _, n := range r.Body["notifications"].([]any) {
			out = append(out, n.(map[string]any))
		}
		return out
	}
	eventually.True(t, 60*time.Second, "the competitor alert", func() bool { return len(competitor()) == 1 })
	first := competitor()[0]
	if msg := fmt.Sprint(first["message"]); !strings.Contains(msg, "68017000001") || !strings.Contains(msg, "ห้างหุ้นส่วนจำกัด ก่อสร้างดี") ||
		!strings.Contains(msg, "1,099,000.00") {
		t.Fatalf("alert: %v", first)
	}
	// A replayed import tells nothing; a later award of the same competitor does.
	ingest("csv", string(csvFixture))
	ingest("csv", marketCSV([][5]string{{"68017000099", "จ้างก่อสร้างรางระบายน้ำ", "500000", "480000", watched + "|ห้างหุ้นส่วนจำกัด ก่อสร้างดี"}}))
	eventually.True(t, 60*time.Second, "the second alert", func() bool { return len(competitor()) >= 2 })
	if got := competitor(); len(got) != 2 || !strings.Contains(fmt.Sprint(got[0]["message"]), "68017000099") {
		t.Fatalf("after a replay and one new award: %v", got)
	}

	// A group of 25 awards (one agency name, method, category): the
	// benchmark and the price guide's bid against the oracle.
	var group [][5]string
	for i := 0; i < 25; i++ {
		ref := 1000000 + 10000*i
		agreed := ref - (i*7919)%120000 + 30000 // some above the reference: negative discounts
		group = append(group, [5]string{fmt.Sprintf("6802%07d", 100+i), fmt.Sprintf("จ้างเหมาขุดลอกคลองสายที่ %d", i), strconv.Itoa(ref), strconv.Itoa(agreed),
			validTaxID(i%4) + fmt.Sprintf("|บริษัท ขุดลอก%d จำกัด", i%4)})
	}
	ingest("csv", marketCSV(group))

	// Benchmarks: every figure of several filters equals the oracle.
	for _, q := range []struct {
		query string
		keep  func(pubRow) bool
	}{
		{"", func(pubRow) bool { return true }},
		{"keyWord_Incl_Or=" + url.QueryEscape("ขุดลอก"), func(r pubRow) bool { return strings.Contains(r.name, "ขุดลอก") }},
		{"method_User_required=16", func(r pubRow) bool { return r.method == "16" }},
		{"dept_User=0701", func(r pubRow) bool { return r.dept == "0701" }},
		{"keyWord_Incl_Or=" + url.QueryEscape("ถนน") + "&method_User_required=19&budgetYear_User=2568,2569",
			func(r pubRow) bool {
				return strings.Contains(r.name, "ถนน") && r.method == "19" && (r.year == 2568 || r.year == 2569)
			}},
	} {
		var b reply
		var want []pubRow
		eventually.True(t, 60*time.Second, "benchmark "+q.query, func() bool {
			want = want[:0]
			for _, r := range publishedAwards(t, e.db) {
				if q.keep(r) {
					want = append(want, r)
				}
			}
			b = e.call("GET", "/market/benchmarks?"+q.query, nil, starter...)
			return b.Status == 200 && num(b.Body["n"])+num(b.Body["n_without_reference"]) == float64(len(want))
		})
		checkBenchmark(t, q.query, b.Body, want)
	}
	expectDetail(t, e.call("GET", "/market/benchmarks?budgetYear_User=1999", nil, starter...), 400, "budget year")
	expectDetail(t, e.call("GET", "/market/benchmarks?annouSDate_User=yesterday", nil, starter...), 400, "date")

	// The price guide of a project of the group: the category basis (CSV
	// rows carry no agency code) and a bid placed by the oracle.
	var guide reply
	eventually.True(t, 30*time.Second, "the price guide", func() bool {
		guide = e.call("GET", "/projects/68020000100/price-guide?bid_price=950000", nil, starter...)
		return guide.Status == 200 && guide.str("basis") != "none"
	})
	typ := guide.Body["group"].(map[string]any)["type_code"]
	var grp []pubRow
	var gds []float64
	for _, r := range publishedAwards(t, e.db) {
		if r.typ == typ && (guide.str("basis") == "category" || r.method == guide.Body["group"].(map[string]any)["method_code"]) {
			grp = append(grp, r)
			if d, ok := r.discount(); ok {
				gds = append(gds, d)
			}
		}
	}
	checkBenchmark(t, "price guide", guide.Body, grp)
	bid := guide.Body["bid"].(map[string]any)
	d := float64(100000000-95000000) / 100000000 * 100
	below := 0
	for _, x := range gds {
		if x < d {
			below++
		}
	}
	if num(bid["discount_pct"]) != round2(d) || num(bid["percentile_rank"]) != round2(float64(below)/float64(len(gds))*100) || num(bid["bid_price"]) != 950000 {
		t.Fatalf("bid: %v (group of %d, %d below)", bid, len(gds), below)
	}
	for _, q := range []string{"bid_price=-5", "bid_price=1.234", "bid_price=abc"} {
		if r := e.call("GET", "/projects/68020000100/price-guide?"+q, nil, starter...); r.Status != 400 || r.detail() == "" {
			t.Fatalf("%s: %d %s", q, r.Status, r.Raw)
		}
	}
	expectDetail(t, e.call("GET", "/projects/abc/price-guide", nil, starter...), 400, "project id")
	expectReason(t, e.call("GET", "/projects/99999999999/price-guide", nil, starter...), 404, "not_found", "project-not-found")

	// An agency of the demo data against the oracle; an unknown one 404.
	var ag reply
	var agRows []pubRow
	eventually.True(t, 60*time.Second, "agency 0701", func() bool {
		agRows = agRows[:0]
		for _, r := range publishedAwards(t, e.db) {
			if r.dept == "0701" {
				agRows = append(agRows, r)
			}
		}
		ag = e.call("GET", "/market/agencies/0701", nil, pro...)
		return ag.Status == 200 && num(ag.Body["projects"]) == float64(len(agRows))
	})
	var ads []float64
	for _, r := range agRows {
		if d, ok := r.discount(); ok {
			ads = append(ads, d)
		}
	}
	sort.Float64s(ads)
	if ag.str("level") != "agency" || num(ag.Body["n"]) != float64(len(ads)) || num(ag.Body["p50_discount_pct"]) != round2(interp(ads, .5)) ||
		len(ag.Body["methods"].([]any)) == 0 || len(ag.Body["top_suppliers"].([]any)) == 0 {
		t.Fatalf("agency: %s", ag.Raw)
	}
	expectReason(t, e.call("GET", "/market/agencies/9999", nil, pro...), 404, "not_found", "agency-not-found")
	expectDetail(t, e.call("GET", "/market/agencies/"+url.PathEscape("a b"), nil, pro...), 400, "agency")

	// The watchlist: pro holds 20; the 21st answers 409 with a detail.
	for i := 0; i < 19; i++ {
		expect(t, e.call("POST", "/market/watchlist", map[string]string{"tax_id": validTaxID(100 + i)}, pro...), 200, "watch more")
	}
	expectDetail(t, e.call("POST", "/market/watchlist", map[string]string{"tax_id": validTaxID(200)}, pro...), 409, "20")
	expect(t, e.call("POST", "/market/watchlist", map[string]string{"tax_id": watched}, pro...), 200, "watching again is no change")
	wl := e.call("GET", "/market/watchlist", nil, pro...)
	if items := wl.Body["items"].([]any); len(items) != 20 || num(wl.Body["limit"]) != 20 {
		t.Fatalf("watchlist: %s", wl.Raw)
	}
	expect(t, e.call("DELETE", "/market/watchlist/"+validTaxID(100), nil, pro...), 200, "unwatch")
	expectReason(t, e.call("DELETE", "/market/watchlist/"+validTaxID(100), nil, pro...), 404, "not_found", "watch-not-found")
	expectDetail(t, e.call("DELETE", "/market/watchlist/1.05559E+11", nil, pro...), 400, "tax id")
	expect(t, e.call("POST", "/market/watchlist", map[string]string{"tax_id": validTaxID(200)}, pro...), 200, "room again")
}
