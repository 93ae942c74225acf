// Command alerts benchmarks the saved-search alerts of the projects service
// (issue 11): C saved searches (generated, Thai keywords and filters as
// users write them), then an import of P new projects through the
// ingestion use case, each write matching its projects and telling their
// alerts in its own transaction (outbox relay → JetStream), then the
// overnight run of C overnight searches over the same P new projects.
//
//	cd bench/alerts && GOWORK=off go run . -criteria 100000 -projects 20000
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"

	projectsv1 "bidradar/gen/projects/v1"

	"bidradar/pkg/events"
	"bidradar/pkg/outbox"
	"bidradar/pkg/pgdb"
	"bidradar/services/projects/benchkit"
	"bidradar/services/projects/projectssvc"
)

// What users type: the goods, services and works of procurement titles,
// whole or in part, from the broad to the specific.
var (
	specific = []string{"คอมพิวเตอร์", "วัสดุสำนักงาน", "ครุภัณฑ์การแพทย์", "น้ำมันเชื้อเพลิง", "วัสดุก่อสร้าง", "อาหารเสริม (นม)",
		"นม", "วัสดุการเกษตร", "ยาและเวชภัณฑ์", "ครุภัณฑ์สำนักงาน", "วัสดุไฟฟ้า", "เครื่องปรับอากาศ", "รถยนต์", "รถบรรทุกขยะ",
		"รถพยาบาล", "เครื่องพิมพ์", "โต๊ะ", "เก้าอี้นักเรียน", "ชุดกีฬา", "โดรน", "กล้องวงจรปิด", "รักษาความปลอดภัย",
		"ทำความสะอาด", "ป้ายประชาสัมพันธ์", "ซ่อมแซมรถยนต์", "กำจัดขยะ", "แบบพิมพ์", "ระบบคอมพิวเตอร์และเครือข่าย", "ที่ปรึกษา",
		"สำรวจและออกแบบ", "เครื่องถ่ายเอกสาร", "ตัดหญ้า", "ภูมิทัศน์", "อาคารเรียน", "ระบบประปา", "ประปาหมู่บ้าน", "ขุดลอก",
		"รางระบายน้ำ", "ห้องน้ำ", "ฝายชะลอน้ำ", "ฝาย", "ไฟฟ้าส่องสว่าง", "พลังงานแสงอาทิตย์", "ท่อระบายน้ำ", "ศาลาอเนกประสงค์",
		"อาคารสำนักงาน", "บ่อบาดาล", "สะพาน", "ถนนคอนกรีตเสริมเหล็ก", "ถนนลาดยาง", "ถนนลูกรัง", "ถนนหินคลุก",
		"แอสฟัลท์ติกคอนกรีต", "พาราแอสฟัลท์", "CCTV", "เลเซอร์"}
	broad      = []string{"ถนน", "ก่อสร้าง", "ซ่อมแซม", "ครุภัณฑ์", "วัสดุ", "จ้างเหมา", "ปรับปรุง", "ติดตั้ง"}
	villageA   = []string{"หนอง", "โนน", "ดอน", "โคก", "นา", "ห้วย", "ป่า", "บึง", "ท่า", "วัง", "สระ", "หัว", "ทุ่ง", "บ่อ", "คลอง", "บาง", "แม่", "ศรี", "เชียง"}
	villageB   = []string{"บัว", "สูง", "แวง", "ใหญ่", "ยาง", "ขาม", "คำ", "ทอง", "น้อย", "ไผ่", "แดง", "เหล็ก", "หิน", "กลาง", "เจริญ", "สะอาด", "ตะเคียน", "มะม่วง", "ช้าง", "งาม"}
	excluded   = []string{"ลูกรัง", "เช่า", "ซ่อม", "นม", "น้ำมัน", "ป้าย"}
	methods    = []string{"16", "19", "15", "18"}
	budgetsLow = []benchkit.Money{0, 10_000_000, 50_000_000, 100_000_000, 500_000_000}
)

// userID is the id of the bench's user i (a UUID, as the notification
// service takes them).
func userID(i int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", i) }

func one(r *rand.Rand, s []string) string { return s[r.IntN(len(s))] }

func some(r *rand.Rand, s []string, lo, hi int) []string {
	n := lo + r.IntN(hi-lo+1)
	out := make([]string, 0, n)
	for len(out) < n {
		v := one(r, s)
		dup := false
		for _, o := range out {
			dup = dup || o == v
		}
		if !dup {
			out = append(out, v)
		}
	}
	return out
}

// genForms makes n saved searches. The mix (by share of searches): one
// specific keyword in 1–3 provinces 61 %, one specific keyword nationwide
// 4 %, a village or tambon name in a province 10 %, a broad AND a place name in a
// province 10 %, any of 2–3 specific keywords in 1–2 provinces 8 %,
// filters only (province + method + budget) 5 %, a broad keyword
// nationwide above 5 M baht 2 %; then 15 % exclude a word, 15 % name a
// method, 20 % a budget range.
func genForms(n int, provinces []string, seed uint64) []benchkit.SearchForm {
	r := rand.New(rand.NewPCG(seed, 11))
	village := func() string { return one(r, villageA) + one(r, villageB) }
	forms := make([]benchkit.SearchForm, n)
	for i := range forms {
		var f benchkit.SearchForm
		k := r.IntN(100)
		switch {
		case k < 61:
			f.AllOf = []string{one(r, specific)}
			f.Provinces = some(r, provinces, 1, 3)
		case k < 65:
			f.AllOf = []string{one(r, specific)}
		case k < 75:
			f.AllOf = []string{village()}
			f.Provinces = some(r, provinces, 1, 1)
		case k < 85:
			f.AllOf = []string{one(r, broad), village()}
			f.Provinces = some(r, provinces, 1, 1)
		case k < 93:
			f.AnyOf = some(r, specific, 2, 3)
			f.Provinces = some(r, provinces, 1, 2)
		case k < 98:
			f.Provinces = some(r, provinces, 1, 1)
			f.Methods = some(r, methods, 1, 1)
			lo := budgetsLow[1+r.IntN(len(budgetsLow)-1)]
			f.MinBudget = &lo
		default:
			f.AllOf = []string{one(r, broad)}
			lo := benchkit.Money(500_000_000)
			f.MinBudget = &lo
		}
		if r.IntN(100) < 15 {
			f.NoneOf = []string{one(r, excluded)}
		}
		if f.Methods == nil && r.IntN(100) < 15 {
			f.Methods = some(r, methods, 1, 2)
		}
		if f.MinBudget == nil && r.IntN(100) < 20 {
			lo := budgetsLow[r.IntN(len(budgetsLow))]
			hi := lo*10 + 100_000_000
			f.MinBudget, f.MaxBudget = &lo, &hi
		}
		clean, err := f.Clean()
		if err != nil {
			fail(fmt.Errorf("generated form %d: %w", i, err))
		}
		forms[i] = clean
	}
	return forms
}

// nameOf names a search as users do, after what it looks for: its
// keywords, and how many provinces or the budget it asks for (85 bytes of
// Thai on average; the alert events carried each search's name until they
// named searches by key only).
func nameOf(f benchkit.SearchForm) string {
	name := strings.Join(append(append([]string(nil), f.AllOf...), f.AnyOf...), " / ")
	if name == "" {
		name = "งานทุกประเภท"
	}
	switch {
	case len(f.Provinces) == 1:
		name += " ในจังหวัดที่ติดตาม"
	case len(f.Provinces) > 1:
		name += fmt.Sprintf(" %d จังหวัด", len(f.Provinces))
	}
	if f.MinBudget != nil && *f.MinBudget > 0 {
		name += fmt.Sprintf(" งบ %d บาทขึ้นไป", *f.MinBudget/100)
	}
	return name
}

func pct(ds []time.Duration, p float64) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(p*float64(len(s))+0.999999) - 1
	return s[max(i, 0)]
}

// options are the command line's.
type options struct {
	criteria, projects, users int
	db, cpuProfile            string
	memoryOnly, overnightOnly bool
	instantOnly, shortNames   bool
	noAlerts, noBells         bool
	bellReplicas              int
}

func parseFlags() options {
	var o options
	flag.IntVar(&o.criteria, "criteria", 100000, "saved searches of each type (normal and overnight)")
	flag.IntVar(&o.projects, "projects", 20000, "new projects imported")
	flag.IntVar(&o.users, "users", 25000, "owners of the saved searches")
	flag.StringVar(&o.db, "db", "bench_alerts", "database (dropped and created again)")
	flag.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the in-memory matching to this file (and of the bench process during the import with its alerts, to this file + .instant; with -overnight-only, of the overnight run to this file + .overnight)")
	flag.BoolVar(&o.memoryOnly, "memory-only", false, "stop after the in-memory matching")
	flag.BoolVar(&o.overnightOnly, "overnight-only", false, "run the overnight run again on the loaded database (its digests of today removed first)")
	flag.BoolVar(&o.instantOnly, "instant-only", false, "stop after the instant alerts (no overnight run)")
	flag.BoolVar(&o.shortNames, "short-names", false, "name every search \"bench\" (the runs before 2026-11-25 16:00 UTC), not as users do")
	flag.BoolVar(&o.noAlerts, "no-alerts", false, "import without the instant alerts (the import alone, for comparison), then stop")
	flag.IntVar(&o.bellReplicas, "bell-replicas", 1, "replicas of the notification service reading the alerts (consumer and relay each; make run-cluster runs two)")
	flag.BoolVar(&o.noBells, "no-bells", false, "leave out the notification service's side (the bell rows)")
	flag.Parse()
	return o
}

func main() {
	o := parseFlags()
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	dbURL := "postgres://postgres@127.0.0.1:5432/" + o.db + "?sslmode=disable"
	if o.overnightOnly {
		if o.cpuProfile != "" {
			defer profile(o.cpuProfile + ".overnight")()
		}
		overnightAgain(ctx, dbURL, log)
		return
	}
	pool := freshDatabase(ctx, o.db, dbURL)
	defer pool.Close()
	ps, provinces := newProjects(o.projects)
	forms := saveSearches(ctx, pool, o, provinces)
	total := matchInMemory(forms, ps, o.cpuProfile)
	if o.memoryOnly {
		return
	}
	// The service's path: each write of the import matches the projects it
	// creates against the saved searches and writes their alerts to the
	// outbox with them; the relay publishes both.
	nc, js, stopBus := startBus(ctx, pool, log)
	defer stopBus()
	// The notification service's side: its consumer of the alerts writes
	// the bell rows, its relay publishes them for the realtime push.
	var bells *bellSide
	if !o.noAlerts && !o.noBells {
		bells = startBells(ctx, dbURL, pool, nc, js, log, o.bellReplicas)
		defer bells.stop()
	}
	run := importProjects(ctx, pool, nc, log, ps, o)
	defer run.stop()
	if o.noAlerts {
		return
	}
	expected := run.reportAlerts(ctx, pool, total)
	if bells != nil {
		bells.report(ctx, run, expected)
	}
	if o.instantOnly {
		return
	}
	// The overnight run over the same new projects.
	start := time.Now()
	st, err := benchkit.RunOvernight(ctx, pool, log)
	if err != nil {
		fail(err)
	}
	fmt.Printf("overnight: %d searches over %d new projects, %d digests, in %s\n",
		st.Criteria, st.ProjectsSeen, st.Digests, time.Since(start).Round(time.Millisecond))
}

// profile starts a CPU profile into file and returns its stop.
func profile(file string) (stop func()) {
	f, err := os.Create(file)
	if err != nil {
		fail(err)
	}
	_ = pprof.StartCPUProfile(f)
	return pprof.StopCPUProfile
}

// freshDatabase drops db, creates it again and migrates the projects schema.
func freshDatabase(ctx context.Context, db, dbURL string) *pgxpool.Pool {
	admin, err := pgx.Connect(ctx, "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable")
	if err != nil {
		fail(err)
	}
	if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{db}.Sanitize()+" WITH (FORCE)"); err != nil {
		fail(err)
	}
	admin.Close(ctx)
	if err := pgdb.EnsureDatabase(ctx, dbURL); err != nil {
		fail(err)
	}
	pool, err := projectssvc.Open(ctx, dbURL)
	if err != nil {
		fail(err)
	}
	return pool
}

// newProjects generates n projects of the last 8 years (not in the
// database) and returns them with their provinces.
func newProjects(n int) ([]benchkit.Project, []string) {
	ps := make([]benchkit.Project, n)
	provSet := map[string]bool{}
	// Current data, every project's newest step within the last 6 days:
	// older data raises no instant alert (docs/product.md#instant-alerts).
	asOf := time.Now()
	for i := range ps {
		ps[i] = benchkit.GenerateFresh(7, i, asOf)
		provSet[ps[i].ProvinceCode] = true
	}
	var provinces []string
	for p := range provSet {
		provinces = append(provinces, p)
	}
	sort.Strings(provinces)
	return ps, provinces
}

// saveSearches saves o.criteria generated searches of each type for
// o.users owners and returns their forms.
func saveSearches(ctx context.Context, pool *pgxpool.Pool, o options, provinces []string) []benchkit.SearchForm {
	forms := genForms(o.criteria, provinces, 3)
	owners := make([]string, len(forms))
	names := make([]string, len(forms))
	for i := range owners {
		owners[i] = userID(i % o.users)
		names[i] = "bench"
		if !o.shortNames {
			names[i] = nameOf(forms[i])
		}
	}
	start := time.Now()
	for _, t := range []string{benchkit.SearchNormal, benchkit.SearchOvernight} {
		if err := benchkit.SaveCriteria(ctx, pool, forms, owners, names, t, time.Now().Add(-time.Hour)); err != nil {
			fail(err)
		}
	}
	if _, err := pool.Exec(ctx, "VACUUM ANALYZE search_criteria"); err != nil {
		fail(err)
	}
	fmt.Printf("saved %d normal + %d overnight searches of %d users in %s\n", len(forms), len(forms), o.users, time.Since(start).Round(time.Millisecond))
	return forms
}

// matchInMemory times the matching alone, in memory, and returns the
// number of matches it found.
func matchInMemory(forms []benchkit.SearchForm, ps []benchkit.Project, cpuProfile string) int {
	stop := func() {}
	if cpuProfile != "" {
		stop = profile(cpuProfile)
	}
	per, build, match := benchkit.MatchInMemory(forms, ps)
	stop()
	total := 0
	hit := 0
	for _, m := range per {
		total += m
		if m > 0 {
			hit++
		}
	}
	sorted := append([]int(nil), per...)
	sort.Ints(sorted)
	fmt.Printf("in memory: index of %d searches built in %s; %d projects matched in %s (%.0f projects/s, %.1f µs each)\n",
		len(forms), build.Round(time.Millisecond), len(ps), match.Round(time.Millisecond),
		float64(len(ps))/match.Seconds(), float64(match.Microseconds())/float64(len(ps)))
	fmt.Printf("           %d matches: %.1f per project (median %d, p99 %d, max %d); %d of %d projects match something\n",
		total, float64(total)/float64(len(ps)), sorted[len(sorted)/2], sorted[len(sorted)*99/100], sorted[len(sorted)-1], hit, len(ps))
	return total
}

// importRun is an import with its alerts, and the events it put on the bus.
type importRun struct {
	start            time.Time
	imported         time.Duration
	stats            benchkit.IngestStats
	matched, created *busRecord
	grouped          *busRecord // import.matched
	recorded         int        // matches recorded as told (project_alerts)
	projects         *pgxpool.Pool
	stop             func()
}

// importProjects imports ps through the ingestion use case (with the
// instant alerts unless o.noAlerts) and waits until the relay has put
// every event it wrote on the bus.
func importProjects(ctx context.Context, pool *pgxpool.Pool, nc *nats.Conn, log *slog.Logger, ps []benchkit.Project, o options) *importRun {
	importer, err := benchkit.Importer(ctx, pool, log, !o.noAlerts)
	if err != nil {
		fail(err)
	}
	// The events as the other services get them: every message the relay
	// publishes, taken off the bus (and decoded after the run: decoding is
	// the notification service's work, in its own process), with when it
	// arrived.
	r := &importRun{matched: recordBus(nc, &projectsv1.ProjectMatched{}), created: recordBus(nc, &projectsv1.ProjectCreated{}),
		grouped: recordBus(nc, &projectsv1.ImportMatched{}), projects: pool}
	r.stop = func() { r.created.stop(); r.matched.stop(); r.grouped.stop() }
	stopProfile := func() {}
	if o.cpuProfile != "" {
		stopProfile = profile(o.cpuProfile + ".instant")
	}
	r.start = time.Now()
	if r.stats, err = importer(ctx, ps); err != nil {
		fail(err)
	}
	r.imported = time.Since(r.start)
	var eventsWritten, groupedWritten int
	_ = pool.QueryRow(ctx, "SELECT coalesce(sum(length(told) / 16), 0) FROM project_alerts").Scan(&r.recorded)
	evs, err := outbox.Stored(ctx, pool)
	if err != nil {
		fail(err)
	}
	for _, e := range evs {
		if strings.HasSuffix(e.Subject, "project.matched") {
			eventsWritten++
		}
		if strings.HasSuffix(e.Subject, "import.matched") {
			groupedWritten++
		}
	}
	for r.matched.n.Load() < int64(eventsWritten) || r.grouped.n.Load() < int64(groupedWritten) || r.created.n.Load() < int64(r.stats.Created) {
		time.Sleep(10 * time.Millisecond)
		if time.Since(r.start) > 30*time.Minute {
			fail(fmt.Errorf("%d of %d alert events and %d of %d project events on the bus after 30 min",
				r.matched.n.Load(), eventsWritten, r.created.n.Load(), r.stats.Created))
		}
	}
	stopProfile()
	createdLast := time.Unix(0, r.created.last.Load()).Sub(r.start)
	what := "with their alerts"
	if o.noAlerts {
		what = "alone (no alerts)"
	}
	fmt.Printf("import: %d new projects %s in %s (%.0f projects/s), %d new matches told; the last project.created on the bus %s after the import began\n",
		r.stats.Created, what, r.imported.Round(time.Millisecond), float64(r.stats.Created)/r.imported.Seconds(), r.stats.Alerted, createdLast.Round(time.Millisecond))
	return r
}

// reportAlerts prints when the instant alerts were on the bus, each
// project's alert lag, and any difference from the in-memory total.
func (r *importRun) reportAlerts(ctx context.Context, pool *pgxpool.Pool, total int) (bellRows int) {
	onBus := time.Unix(0, r.matched.last.Load()).Sub(r.start)
	createdPayloads, createdAt := r.created.taken()
	onBusAt := make(map[string]int64, len(createdPayloads))
	for i, data := range createdPayloads {
		var ev projectsv1.ProjectCreated
		if err := proto.Unmarshal(data, &ev); err != nil {
			fail(err)
		}
		onBusAt[ev.ProjectId] = createdAt[i]
	}
	var publishedMatches int64 // of the one-project alerts
	alertedAt := map[string]int64{}
	payloads, payloadAt := r.matched.taken()
	for i, data := range payloads {
		var ev projectsv1.ProjectMatched
		if err := proto.Unmarshal(data, &ev); err != nil {
			fail(err)
		}
		alertedAt[ev.Project.GetProjectId()] = max(alertedAt[ev.Project.GetProjectId()], payloadAt[i])
		publishedMatches += int64(len(ev.CriteriaKeys) / 16)
	}
	// One user's alert of the whole import (two projects or more).
	gPayloads, _ := r.grouped.taken()
	var namedProjects int
	users := map[string]bool{}
	for _, data := range gPayloads {
		var ev projectsv1.ImportMatched
		if err := proto.Unmarshal(data, &ev); err != nil {
			fail(err)
		}
		for _, u := range ev.Users {
			namedProjects += len(u.ProjectIds)
			users[u.UserId] = true
		}
	}
	if len(gPayloads) > 0 {
		onBus = max(onBus, time.Unix(0, r.grouped.last.Load()).Sub(r.start))
	}
	// The users of the one-project alerts (each searched once by owner).
	single := map[string]bool{}
	var keys [][16]byte
	for _, data := range payloads {
		var ev projectsv1.ProjectMatched
		if err := proto.Unmarshal(data, &ev); err != nil {
			fail(err)
		}
		for i := 0; i+16 <= len(ev.CriteriaKeys); i += 16 {
			keys = append(keys, [16]byte(ev.CriteriaKeys[i:i+16]))
		}
	}
	if len(keys) > 0 {
		rows, err := pool.Query(ctx, "SELECT DISTINCT user_id FROM search_criteria WHERE id = ANY($1::uuid[])", keys)
		if err != nil {
			fail(err)
		}
		owners, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			fail(err)
		}
		for _, u := range owners {
			single[u] = true
		}
	}
	fmt.Printf("instant alerts on the bus: the last of %d import.matched (%d users, %d user-project pairs) and %d project.matched events (%d matches, %d users) published %s after the import began, %s after the import ended\n",
		len(gPayloads), len(users), namedProjects, len(payloads), publishedMatches, len(single), onBus.Round(time.Millisecond), (onBus - r.imported).Round(time.Millisecond))
	fmt.Printf("bell rows to write: %d (one a user and import, and one a project for a user matched by one project), instead of one a user and project: %d\n",
		len(users)+len(single), namedProjects+len(single))
	reportLag(ctx, pool, alertedAt, onBusAt)
	if r.recorded != total || r.stats.Alerted != total {
		fmt.Printf("!! recorded %d matches, told %d; the in-memory index found %d\n", r.recorded, r.stats.Alerted, total)
	}
	return len(users) + len(single)
}

// reportLag prints each project's alert lag: until its last
// project.matched is on the bus (alertedAt), from its project.created on
// the bus (onBusAt) and from when the import stamped it (first_seen_at, set
// as its batch of 1,000 is written: a little before its commit).
func reportLag(ctx context.Context, pool *pgxpool.Pool, alertedAt, onBusAt map[string]int64) {
	stamped := map[string]int64{}
	rows, err := pool.Query(ctx, "SELECT id, first_seen_at FROM projects")
	if err != nil {
		fail(err)
	}
	var id string
	var seenAt time.Time
	if _, err := pgx.ForEachRow(rows, []any{&id, &seenAt}, func() error {
		stamped[id] = seenAt.UnixNano()
		return nil
	}); err != nil {
		fail(err)
	}
	var fromBus, fromStamp []time.Duration
	for id, at := range alertedAt {
		if c, ok := onBusAt[id]; ok {
			fromBus = append(fromBus, time.Duration(at-c))
		}
		if c, ok := stamped[id]; ok {
			fromStamp = append(fromStamp, time.Duration(at-c))
		}
	}
	for _, l := range []struct {
		from string
		ds   []time.Duration
	}{{"its project.created on the bus", fromBus}, {"its import stamp", fromStamp}} {
		if len(l.ds) > 0 {
			fmt.Printf("alert lag of %d projects, from %s to its last project.matched on the bus: p50 %s p90 %s p99 %s max %s\n",
				len(l.ds), l.from, pct(l.ds, .5).Round(time.Millisecond), pct(l.ds, .9).Round(time.Millisecond),
				pct(l.ds, .99).Round(time.Millisecond), pct(l.ds, 1).Round(time.Millisecond))
		}
	}
}

// overnightAgain clears the overnight runs, their digests and what they
// recorded as told, then times the run again (with the relay publishing
// its events, as in the service).
func overnightAgain(ctx context.Context, dbURL string, log *slog.Logger) {
	pool, err := projectssvc.Open(ctx, dbURL)
	if err != nil {
		fail(err)
	}
	defer pool.Close()
	for _, q := range []string{
		"DELETE FROM criteria_matches WHERE criteria_id IN (SELECT id FROM search_criteria WHERE search_type = 'overnight')",
		"DELETE FROM overnight_digests", "DELETE FROM overnight_runs", "DELETE FROM outbox", "VACUUM ANALYZE criteria_matches",
	} {
		if _, err := pool.Exec(ctx, q); err != nil {
			fail(fmt.Errorf("%s: %w", q, err))
		}
	}
	_, _, stopBus := startBus(ctx, pool, log)
	defer stopBus()
	start := time.Now()
	st, err := benchkit.RunOvernight(ctx, pool, log)
	if err != nil {
		fail(err)
	}
	fmt.Printf("overnight: %d searches over %d new projects, %d digests, in %s\n",
		st.Criteria, st.ProjectsSeen, st.Digests, time.Since(start).Round(time.Millisecond))
}

// startBus starts the service's event path in the bench process: an
// embedded JetStream (files in a temporary directory) with the projects
// stream, a connection to it, and the outbox relay publishing pool's
// events. stop ends them all and removes the files.
func startBus(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger) (*nats.Conn, jetstream.JetStream, func()) {
	dir, err := os.MkdirTemp("", "bench-alerts-nats")
	if err != nil {
		fail(err)
	}
	ns, natsURL, err := events.StartEmbedded(events.EmbeddedOptions{StoreDir: dir, Port: -1})
	if err != nil {
		fail(err)
	}
	nc, js, err := events.Connect(natsURL, "bench-alerts")
	if err != nil {
		fail(err)
	}
	if err := events.EnsureStreams(ctx, js, "PROJECTS"); err != nil {
		fail(err)
	}
	rctx, stopRelay := context.WithCancel(ctx)
	relayDone := make(chan struct{})
	go func() {
		defer close(relayDone)
		_ = outbox.NewRelay(pool, js, log, outbox.RelayOptions{}).Run(rctx)
	}()
	return nc, js, func() {
		stopRelay()
		<-relayDone
		nc.Close()
		ns.Shutdown()
		_ = os.RemoveAll(dir)
	}
}

// busRecord keeps the messages of a subject (wildcards allowed) as they
// reach the bus, with when each arrived.
type busRecord struct {
	sub     *nats.Subscription
	n, last atomic.Int64 // messages so far, and when the last arrived (ns)
	mu      sync.Mutex
	data    [][]byte
	at      []int64
}

// recordBus records the subject the event ev is published on.
func recordBus(nc *nats.Conn, ev proto.Message) *busRecord {
	subject, err := events.SubjectOf(ev)
	if err != nil {
		fail(err)
	}
	return recordSubject(nc, subject)
}

func recordSubject(nc *nats.Conn, subject string) *busRecord {
	r := &busRecord{}
	sub, err := nc.Subscribe(subject, func(m *nats.Msg) {
		now := time.Now().UnixNano()
		r.mu.Lock()
		r.data, r.at = append(r.data, m.Data), append(r.at, now)
		r.mu.Unlock()
		r.n.Add(1)
		r.last.Store(now)
	})
	if err != nil {
		fail(err)
	}
	_ = sub.SetPendingLimits(-1, -1)
	r.sub = sub
	return r
}

// taken returns the messages recorded so far and when each arrived.
func (r *busRecord) taken() ([][]byte, []int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.data, r.at
}

func (r *busRecord) stop() { _ = r.sub.Unsubscribe() }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "alerts bench:", err)
	os.Exit(1)
}
