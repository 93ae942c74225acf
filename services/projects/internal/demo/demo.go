// Package demo generates realistic, deterministic Thai procurement projects
// for demo data (DEMO_DATA) and benchmarks (up to 10 M rows). Project i is a
// pure function of (seed, i), so rows can be generated in parallel and any
// row can be regenerated. Nothing happens after End (no winner announced in
// the future), and demo projects carry no links: their ids exist nowhere on
// e-GP, so a link there would lead to a page that does not exist.
package demo

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"bidradar/services/projects/internal/domain"
)

// Generator builds projects.
type Generator struct {
	Seed uint64
	// End is "today": the newest announcement is on or before it, and
	// projects spread over the Months before it.
	End    time.Time
	Months int
}

// New returns a generator ending in the month of end, spread over 8 years.
func New(seed uint64, end time.Time) *Generator {
	return &Generator{Seed: seed, End: end, Months: 96}
}

var (
	villagePrefix = []string{"หนอง", "โนน", "ดอน", "โคก", "นา", "ห้วย", "ป่า", "บึง", "ท่า", "วัง", "สระ", "หัว", "ทุ่ง", "บ่อ", "คลอง", "หนองหญ้า", "บาง", "แม่", "ศรี", "เชียง"}
	villageSuffix = []string{"บัว", "สูง", "แวง", "ใหญ่", "ยาง", "ขาม", "คำ", "ทอง", "น้อย", "ไผ่", "แดง", "เหล็ก", "หิน", "กลาง", "เจริญ", "สะอาด", "ตะเคียน", "มะม่วง", "ปลาไหล", "สวรรค์", "โพธิ์", "ทราย", "ช้าง", "เกลือ", "งาม"}
	roads         = []string{"ถนนคอนกรีตเสริมเหล็ก", "ถนนลาดยางแอสฟัลท์ติกคอนกรีต", "ถนนลูกรัง", "ถนนหินคลุก", "ถนนพาราแอสฟัลท์ติกคอนกรีต"}
	goods         = []string{"วัสดุคอมพิวเตอร์", "วัสดุสำนักงาน", "ครุภัณฑ์คอมพิวเตอร์", "ครุภัณฑ์การแพทย์", "น้ำมันเชื้อเพลิง", "วัสดุก่อสร้าง", "อาหารเสริม (นม) โรงเรียน", "วัสดุการเกษตร", "ยาและเวชภัณฑ์", "ครุภัณฑ์สำนักงาน", "วัสดุไฟฟ้าและวิทยุ", "เครื่องปรับอากาศ", "รถยนต์ส่วนกลาง", "รถบรรทุกขยะ", "รถพยาบาล (รถตู้)", "เครื่องพิมพ์เลเซอร์", "โต๊ะและเก้าอี้นักเรียน", "ชุดกีฬา", "โดรนเพื่อการเกษตร", "กล้องวงจรปิด (CCTV)"}
	services      = []string{"จ้างเหมาบริการรักษาความปลอดภัย", "จ้างเหมาบริการทำความสะอาด", "จ้างเหมาจัดทำป้ายประชาสัมพันธ์", "จ้างซ่อมแซมรถยนต์ส่วนกลาง", "จ้างเหมาบริการกำจัดขยะมูลฝอย", "จ้างพิมพ์เอกสารและแบบพิมพ์", "จ้างเหมาบริการดูแลระบบคอมพิวเตอร์และเครือข่าย", "จ้างที่ปรึกษาสำรวจและออกแบบ", "เช่าเครื่องถ่ายเอกสาร", "จ้างเหมาตัดหญ้าและดูแลภูมิทัศน์"}
	works         = []string{"ก่อสร้างอาคารเรียน", "ก่อสร้างระบบประปาหมู่บ้าน", "ขุดลอกคลอง", "ก่อสร้างรางระบายน้ำคอนกรีตเสริมเหล็ก", "ปรับปรุงห้องน้ำ", "ก่อสร้างฝายชะลอน้ำ", "ติดตั้งไฟฟ้าส่องสว่างพลังงานแสงอาทิตย์", "ซ่อมแซมท่อระบายน้ำ", "ก่อสร้างศาลาอเนกประสงค์", "ปรับปรุงอาคารสำนักงาน", "เจาะบ่อบาดาล", "ก่อสร้างสะพานคอนกรีตเสริมเหล็ก"}
	central       = []struct{ code, name, sub string }{
		{"0701", "กรมชลประทาน", "สำนักงานชลประทานที่ %d"},
		{"0802", "กรมทางหลวงชนบท", "แขวงทางหลวงชนบท%s"},
		{"0801", "กรมทางหลวง", "แขวงทางหลวง%s"},
		{"0304", "กรมบัญชีกลาง", "สำนักงานคลังจังหวัด%s"},
		{"0201", "กองทัพบก", "กองพันทหารช่างที่ %d"},
		{"1405", "กรมโยธาธิการและผังเมือง", "สำนักงานโยธาธิการและผังเมืองจังหวัด%s"},
		{"2101", "สำนักงานปลัดกระทรวงสาธารณสุข", "โรงพยาบาล%s"},
		{"2007", "สำนักงานคณะกรรมการการศึกษาขั้นพื้นฐาน", "สำนักงานเขตพื้นที่การศึกษาประถมศึกษา%s เขต %d"},
		{"2501", "สำนักงานตำรวจแห่งชาติ", "ตำรวจภูธรจังหวัด%s"},
		{"1901", "มหาวิทยาลัยขอนแก่น", "คณะวิศวกรรมศาสตร์"},
		{"0901", "กรมทรัพยากรน้ำ", "สำนักงานทรัพยากรน้ำภาค %d"},
		{"0708", "กรมส่งเสริมการเกษตร", "สำนักงานเกษตรจังหวัด%s"},
	}
	thaiDigits = []rune("๐๑๒๓๔๕๖๗๘๙")
)

type methodW struct {
	code string
	w    int
}

var methodWeights = []methodW{{"19", 58}, {"16", 24}, {"15", 7}, {"18", 5}, {"17", 2}, {"22", 1}, {"21", 1}, {"25", 1}, {"23", 1}}

// Project returns project i: a date and id from its month, a place, an
// agency, a method, a title and budget by category of work, the steps of
// the method's lifecycle up to today, its deadlines and, once awarded, the
// winner and contract. Every part draws from r in this order, so project i
// stays the same however the parts are written.
func (g *Generator) Project(i int) domain.Project {
	r := rand.New(rand.NewPCG(g.Seed, uint64(i)*0x9E3779B97F4A7C15+1))
	first, today, id := g.when(r, i)
	prov := domain.Provinces[r.IntN(len(domain.Provinces))]
	pl := drawPlace(r)
	num := numerals(r.IntN(10) < 4)
	fy := domain.FiscalYear(first)

	p := domain.Project{ID: id, ProvinceCode: prov.Code, Subdistrict: pl.tambon, Source: domain.SourceDemo}
	drawAgency(r, &p, prov, pl.tambon)
	p.MethodCode = drawMethod(r)
	title, budget := drawWork(r, &p, pl, num, fy)
	p.Name = methodTitle(p.MethodCode, title)
	p.StrategyCode = strconv.Itoa(1 + r.IntN(6))
	bud := domain.Money(int64(math.Round(budget/100)) * 10000) // whole hundreds of baht
	p.Budget = &bud
	next := drawSteps(r, &p, first, today)
	lastDate := p.Announcements[len(p.Announcements)-1].Date
	g.deadlines(&p, i)
	if signed := drawAward(r, &p, bud, next, today, num, fy); signed != nil {
		lastDate = *signed
	}
	p.BudgetYear = fy
	p.FirstSeen = first
	p.LastSeen = lastDate
	p.Derive()
	return p
}

// when draws the first announcement of project i, in its month (month i
// mod Months back from End, up to End in End's own month), and names it:
// the id is the Buddhist-era year and month, then i's sequence in that month.
func (g *Generator) when(r *rand.Rand, i int) (first, today time.Time, id string) {
	months := g.Months
	if months <= 0 {
		months = 96
	}
	m := i % months
	seq := i / months
	end := g.End.In(domain.Bangkok)
	month := time.Date(end.Year(), end.Month(), 1, 0, 0, 0, 0, domain.Bangkok).AddDate(0, -m, 0)
	days := month.AddDate(0, 1, -1).Day()
	today = domain.Date(end.Year(), end.Month(), end.Day())
	if m == 0 {
		days = end.Day() // this month: up to today
	}
	first = domain.Date(month.Year(), month.Month(), 1+r.IntN(days))
	id = fmt.Sprintf("%02d%02d%07d", (month.Year()+543)%100, int(month.Month()), seq%10000000)
	return first, today, id
}

// place is where the work is: two villages (a road joins them) and the
// subdistrict (tambon).
type place struct{ village, village2, tambon string }

func drawPlace(r *rand.Rand) place {
	village := pick(r, villagePrefix) + pick(r, villageSuffix)
	village2 := pick(r, villagePrefix) + pick(r, villageSuffix)
	tambon := pick(r, villagePrefix) + pick(r, villageSuffix)
	return place{village, village2, tambon}
}

// numerals writes numbers in Thai digits (as 4 titles in 10 do) or ASCII.
func numerals(thai bool) func(int) string {
	return func(n int) string {
		s := strconv.Itoa(n)
		if thai {
			return toThai(s)
		}
		return s
	}
}

// drawAgency makes p a local administration of its subdistrict or
// province (55 %), else an office of a central department in the province.
func drawAgency(r *rand.Rand, p *domain.Project, prov domain.Province, tambon string) {
	if r.IntN(100) < 55 {
		switch r.IntN(4) {
		case 0, 1:
			p.AgencyName = "องค์การบริหารส่วนตำบล" + tambon
		case 2:
			p.AgencyName = "เทศบาลตำบล" + tambon
		default:
			p.AgencyName = "องค์การบริหารส่วนจังหวัด" + prov.NameTh
		}
		p.AgencyCode = "6" + prov.Code + fmt.Sprintf("%04d", r.IntN(3000))
		p.MinistryCode = "99"
		p.SubAgencyName = "กองช่าง"
		if r.IntN(3) == 0 {
			p.SubAgencyName = "กองคลัง"
		}
		return
	}
	c := central[r.IntN(len(central))]
	p.AgencyCode, p.AgencyName, p.MinistryCode = c.code, c.name, c.code[:2]
	switch {
	case !strings.Contains(c.sub, "%"):
		p.SubAgencyName = c.sub
	case strings.Contains(c.sub, "%s") && strings.Contains(c.sub, "%d"):
		p.SubAgencyName = fmt.Sprintf(c.sub, prov.NameTh, 1+r.IntN(3))
	case strings.Contains(c.sub, "%s"):
		p.SubAgencyName = fmt.Sprintf(c.sub, prov.NameTh)
	default:
		p.SubAgencyName = fmt.Sprintf(c.sub, 1+r.IntN(17))
	}
}

// drawMethod draws a procurement method by its share of e-GP's projects.
func drawMethod(r *rand.Rand) string {
	w := r.IntN(100)
	for _, mw := range methodWeights {
		if w < mw.w {
			return mw.code
		}
		w -= mw.w
	}
	return "19"
}

// methodTitle words title as e-GP does for the method: the bidding
// methods lead with "ประกวดราคา" and every title ends with its method.
func methodTitle(method, title string) string {
	suffix := " โดยวิธีเฉพาะเจาะจง"
	prefix := ""
	switch method {
	case "16":
		suffix, prefix = " ด้วยวิธีประกวดราคาอิเล็กทรอนิกส์ (e-bidding)", "ประกวดราคา"
	case "15":
		suffix, prefix = " ด้วยวิธีตลาดอิเล็กทรอนิกส์ (e-market)", "ประกวดราคา"
	case "18", "21", "24":
		suffix = " โดยวิธีคัดเลือก"
	}
	return prefix + title + suffix
}

// drawWork draws the category of work (p.WorkTypeCode), a title in its
// words and a budget in baht from the category's range.
func drawWork(r *rand.Rand, p *domain.Project, pl place, num func(int) string, fy int) (title string, budget float64) {
	switch k := r.IntN(100); {
	case k < 38:
		p.WorkTypeCode = "02"
		if r.IntN(2) == 0 {
			title = fmt.Sprintf("จ้างก่อสร้าง%s สายบ้าน%s - บ้าน%s หมู่ที่ %s ตำบล%s", pick(r, roads), pl.village, pl.village2, num(1+r.IntN(15)), pl.tambon)
			if r.IntN(3) == 0 {
				title += fmt.Sprintf(" กว้าง %s เมตร ยาว %s เมตร", num(4+r.IntN(3)), num(100+r.IntN(900)))
			}
		} else {
			title = fmt.Sprintf("จ้าง%s บ้าน%s หมู่ที่ %s ตำบล%s", pick(r, works), pl.village, num(1+r.IntN(15)), pl.tambon)
		}
		return title, logUniform(r, 80_000, 60_000_000)
	case k < 70:
		p.WorkTypeCode = "01"
		title = fmt.Sprintf("ซื้อ%s", pick(r, goods))
		switch r.IntN(3) {
		case 0:
			title += fmt.Sprintf(" จำนวน %s รายการ", num(1+r.IntN(30)))
		case 1:
			title += " ประจำปีงบประมาณ " + num(fy)
		}
		return title, logUniform(r, 5_000, 8_000_000)
	case k < 93:
		p.WorkTypeCode = "03"
		title = pick(r, services)
		if r.IntN(2) == 0 {
			title += " ประจำปีงบประมาณ " + num(fy)
		} else {
			title += fmt.Sprintf(" จำนวน %s เดือน", num(1+r.IntN(12)))
		}
		return title, logUniform(r, 10_000, 5_000_000)
	default:
		p.WorkTypeCode = "04"
		title = "เช่า" + strings.TrimPrefix(pick(r, []string{"เช่าเครื่องถ่ายเอกสาร", "เช่ารถยนต์ส่วนกลาง", "เช่าพื้นที่จัดเก็บเอกสาร"}), "เช่า")
		return title, logUniform(r, 20_000, 2_000_000)
	}
}

// drawSteps announces the steps of the method's lifecycle from first, a
// few days apart, stopping at a drawn step or at today (later steps have
// not happened yet). It returns the day after the last step's interval,
// from which a contract is signed.
func drawSteps(r *rand.Rand, p *domain.Project, first, today time.Time) (next time.Time) {
	var path []domain.AnnouncementType
	switch p.MethodCode {
	case "16", "15", "23", "20":
		path = []domain.AnnouncementType{"P0", "B0", "15", "D0"}
		if r.IntN(8) == 0 {
			path = append(path, "D2")
		}
		if r.IntN(12) == 0 {
			path = append(path, "D1")
		} else {
			path = append(path, "W0")
			if r.IntN(15) == 0 {
				path = append(path, "W2")
			}
		}
	default:
		path = []domain.AnnouncementType{"P0", "W0"}
		if r.IntN(3) == 0 {
			path = []domain.AnnouncementType{"W0"}
		}
	}
	n := 1 + r.IntN(len(path))
	if r.IntN(2) == 0 {
		n = len(path)
	}
	d := first
	for _, t := range path[:n] {
		if d.After(today) {
			break
		}
		p.Announcements = append(p.Announcements, domain.Announcement{Type: t, Name: t.NameTh(), Date: d})
		d = d.AddDate(0, 0, 3+r.IntN(12))
	}
	return d
}

// drawAward prices a project whose last step has a reference price, and
// gives an awarded one (W0, W2) its winner and, half the time when signed
// by today, a contract signed on next + 2 days, whose date it returns.
func drawAward(r *rand.Rand, p *domain.Project, bud domain.Money, next, today time.Time, num func(int) string, fy int) (signed *time.Time) {
	last := p.Announcements[len(p.Announcements)-1].Type
	if last == "15" || last == "D0" || last == "D2" || last == "W0" || last == "W2" {
		ref := domain.Money(int64(float64(bud)*(0.9+0.1*r.Float64())/100) * 100)
		p.ReferencePrice = &ref
	}
	if last != "W0" && last != "W2" {
		return nil
	}
	ag := domain.Money(int64(float64(*p.ReferencePrice)*(0.8+0.2*r.Float64())/100) * 100)
	p.AgreedPrice = &ag
	// The winner comes from a pool of suppliers by province and category
	// (the same draws as before, so every other field stays): a supplier
	// wins again and again, as in the published rows, so the market's
	// profiles and price guide have groups to show.
	kind, word, suffix, end := r.IntN(3), r.IntN(6), r.IntN(len(villageSuffix)), r.IntN(3)
	r.IntN(89)
	n := r.Int64N(1e10)
	p.WinnerName, p.WinnerTaxID = Supplier(int(n%supplierPool)*7+kind+word+suffix+end, p.ProvinceCode+p.WorkTypeCode)
	s := next.AddDate(0, 0, 2)
	if r.IntN(2) != 0 || s.After(today) {
		return nil
	}
	p.ContractNo = fmt.Sprintf("%s/%s", num(1+r.IntN(300)), num(fy))
	cend := s.AddDate(0, 1+r.IntN(11), 0)
	p.ContractSigned, p.ContractEnd = &s, &cend
	p.ContractValue = p.AgreedPrice
	if cend.Before(today) && r.IntN(2) == 0 {
		p.ContractStatus = "สิ้นสุดสัญญา"
	} else {
		p.ContractStatus = "ระหว่างดำเนินการ"
	}
	return &s
}

// deadlines gives a tender its dates as e-GP publishes them: the hearing
// ends 3 to 7 days after the draft (B0), bids close 7 to 20 days after the
// invitation (D0); later steps never move them. Drawn from their own
// stream, so the other fields of project i stay as they were.
func (g *Generator) deadlines(p *domain.Project, i int) {
	r := rand.New(rand.NewPCG(g.Seed^0xDEAD11AE, uint64(i)))
	for _, a := range p.Announcements {
		switch a.Type {
		case domain.AnnDraft:
			d := a.Date.AddDate(0, 0, 3+r.IntN(5))
			p.HearingDue = &d
		case domain.AnnInvitation:
			d := a.Date.AddDate(0, 0, 7+r.IntN(14))
			p.SubmissionDue = &d
		}
	}
}

func pick(r *rand.Rand, s []string) string { return s[r.IntN(len(s))] }

func logUniform(r *rand.Rand, lo, hi float64) float64 {
	return math.Exp(math.Log(lo) + r.Float64()*(math.Log(hi)-math.Log(lo)))
}

func toThai(s string) string {
	rs := []rune(s)
	for i, c := range rs {
		if c >= '0' && c <= '9' {
			rs[i] = thaiDigits[c-'0']
		}
	}
	return string(rs)
}

// supplierPool is how many suppliers a province and category share.
const supplierPool = 6

var (
	supplierKinds = []string{"บริษัท ", "ห้างหุ้นส่วนจำกัด ", "ร้าน"}
	supplierWords = []string{"ก่อสร้าง", "รุ่งเรือง", "ศรีสยาม", "ไทยพัฒนา", "เจริญกิจ", "ทองคำ"}
)

// Supplier returns supplier k of a pool (the key names it, e.g. a province
// and a category): a Thai name and a 13-digit tax id with a valid check digit
// (docs/market.md#tax-ids), the same for the same (k, key).
func Supplier(k int, key string) (name, taxID string) {
	var h uint64 = 1469598103934665603
	for _, b := range []byte(key) {
		h = (h ^ uint64(b)) * 1099511628211
	}
	h = (h ^ uint64(k%supplierPool)) * 1099511628211
	r := rand.New(rand.NewPCG(h, 0x5EED))
	name = supplierKinds[r.IntN(len(supplierKinds))] + supplierWords[r.IntN(len(supplierWords))] +
		villageSuffix[r.IntN(len(villageSuffix))] + villagePrefix[r.IntN(len(villagePrefix))]
	if name[:len(supplierKinds[2])] != supplierKinds[2] {
		name += " จำกัด"
	}
	d := fmt.Sprintf("0%02d%09d", 10+r.IntN(89), r.Int64N(1e9))
	sum := 0
	for i := 0; i < 12; i++ {
		sum += int(d[i]-'0') * (13 - i)
	}
	return name, d + strconv.Itoa((11-sum%11)%10)
}
