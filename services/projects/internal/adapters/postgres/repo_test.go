package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"google.golang.org/protobuf/proto"

	projectsv1 "bidradar/gen/projects/v1"
	"bidradar/pkg/events"
	"bidradar/pkg/outbox"
	"bidradar/pkg/pgdb"
	"bidradar/pkg/testutil/pgtest"
	"bidradar/pkg/thaitext"
	"bidradar/services/projects/internal/adapters/eventproto"
	"bidradar/services/projects/internal/adapters/postgres"
	"bidradar/services/projects/internal/demo"
	"bidradar/services/projects/internal/domain"
	"bidradar/services/projects/migrations"
)

// subjectOf is the subject the event m is published on.
func subjectOf(t testing.TB, m proto.Message) string {
	t.Helper()
	s, err := events.SubjectOf(m)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// storedOn is the events stored in the outbox on m's subject, oldest first.
func storedOn(t testing.TB, pool *pgxpool.Pool, m proto.Message) []outbox.Event {
	t.Helper()
	evs, err := outbox.Stored(context.Background(), pool)
	if err != nil {
		t.Fatal(err)
	}
	subj := subjectOf(t, m)
	var out []outbox.Event
	for _, e := range evs {
		if e.Subject == subj {
			out = append(out, e)
		}
	}
	return out
}

func setup(t testing.TB) (*pgxpool.Pool, string) {
	t.Helper()
	url := pgtest.NewDatabase(t)
	ctx := context.Background()
	pool, err := pgdb.Open(ctx, url, "projects")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := outbox.Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	if err := pgdb.Migrate(ctx, pool, "projects", migrations.FS); err != nil {
		t.Fatal(err)
	}
	return pool, url
}

// The databases are created with LC_CTYPE C.UTF-8 (pgdb.EnsureDatabase).
// Search no longer depends on it (migration 5: trigram codes come from Go),
// but character classes of non-ASCII text (regular expressions, and
// pg_trgm, still installed for ad-hoc similarity queries) need it: under C,
// pg_trgm extracts nothing from Thai.
func TestTrigramsNeedUTF8CType(t *testing.T) {
	pool, url := setup(t)
	ctx := context.Background()
	var n int
	if err := pool.QueryRow(ctx, `SELECT cardinality(show_trgm('ถนนคอนกรีต'))`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("pg_trgm extracts nothing from Thai under this database's LC_CTYPE")
	}
	// Under LC_CTYPE C, pg_trgm extracts nothing from Thai.
	cfg, _ := pgx.ParseConfig(url)
	admin, err := pgx.Connect(ctx, strings.Replace(url, "/"+cfg.Database, "/postgres", 1))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	name := cfg.Database + "_c"
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name+" TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'"); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if _, err := admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("drop %s: %v", name, err)
		}
	}()
	c, err := pgx.Connect(ctx, strings.Replace(url, "/"+cfg.Database, "/"+name, 1))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "CREATE EXTENSION pg_trgm"); err != nil {
		t.Fatal(err)
	}
	if err := c.QueryRow(ctx, `SELECT cardinality(show_trgm('ถนนคอนกรีต'))`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("expected no trigram under C, got %d", n)
	}
}

// The SQL search_trigrams (migration 5 back-fills with it) must give the
// codes the service writes (thaitext.Trigrams).
func TestSQLTrigramsMatchGo(t *testing.T) {
	pool, _ := setup(t)
	ctx := context.Background()
	g := demo.New(3, time.Date(2026, 9, 30, 0, 0, 0, 0, domain.Bangkok))
	texts := []string{"", "ก", "รถ", "abc", "a b", "ถนน 😀 café", "\u00e9t\u00e9 ๑๒๓", "ก่อสร้าง-ถนน(คสล.)"}
	for i := 0; i < 300; i++ {
		texts = append(texts, g.Project(i).Name)
	}
	for _, raw := range texts {
		text := thaitext.Normalize(raw)
		var got []int32
		if err := pool.QueryRow(ctx, "SELECT search_trigrams($1)", text).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if want := slices.Sorted(slices.Values(thaitext.Trigrams(text))); !slices.Equal(got, want) {
			t.Fatalf("%q: SQL %v, Go %v", text, got, want)
		}
	}
}

func TestUpsertIdempotentWithEvents(t *testing.T) {
	pool, _ := setup(t)
	ctx := context.Background()
	repo := postgres.New(pool, eventproto.Encoder{}, postgres.Options{})
	g := demo.New(1, time.Date(2026, 9, 30, 0, 0, 0, 0, domain.Bangkok))
	var batch []domain.Project
	for i := 0; i < 200; i++ {
		batch = append(batch, g.Project(i))
	}
	now := time.Now()
	st, err := repo.Upsert(ctx, 1, batch, now)
	if err != nil {
		t.Fatal(err)
	}
	steps := 0
	for _, p := range batch {
		steps += len(p.Announcements)
	}
	if st.Created != 200 || st.AnnouncementsAdded != steps {
		t.Fatalf("stats %+v (steps %d)", st, steps)
	}
	// a new project publishes project.created only (its steps are in it),
	// and an awarded one its award (award.recorded) for the market
	awarded := 0
	for i := range batch {
		if batch[i].HasAward() {
			awarded++
		}
	}
	if awarded == 0 {
		t.Fatal("no awarded demo project")
	}
	events := func() []outbox.Event {
		t.Helper()
		evs, err := outbox.Stored(ctx, pool)
		if err != nil {
			t.Fatal(err)
		}
		return evs
	}
	if n := len(events()); n != 200+awarded {
		t.Fatalf("events %d, want %d", n, 200+awarded)
	}
	st, err = repo.Upsert(ctx, 2, batch, now.Add(time.Hour))
	if err != nil || st.Unchanged != 200 || st.Created+st.Updated != 0 {
		t.Fatalf("replay %+v %v", st, err)
	}
	if n := len(events()); n != 200+awarded {
		t.Fatalf("replay published events: %d", n)
	}
	// a new step on one project: one update, one announcement
	p := batch[0]
	p.Announcements = append([]domain.Announcement(nil), p.Announcements...)
	last := p.Announcements[len(p.Announcements)-1]
	p.Announcements = append(p.Announcements, domain.Announcement{Type: "W1", Date: last.Date.AddDate(0, 0, 5)})
	st, err = repo.Upsert(ctx, 3, []domain.Project{p}, now)
	if err != nil || st.Updated != 1 || st.AnnouncementsAdded != 1 {
		t.Fatalf("update %+v %v", st, err)
	}
	got, err := repo.Get(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != domain.StatusCancelled || *got.Budget != *batch[0].Budget || got.Name != batch[0].Name || !got.FirstSeen.Equal(got.FirstSeen) {
		t.Fatalf("got %+v", got)
	}
	evs := events()
	var kinds []string
	for _, e := range evs[len(evs)-2:] {
		kinds = append(kinds, e.Subject)
	}
	if len(evs) != 202+awarded || kinds[0] != subjectOf(t, &projectsv1.ProjectUpdated{}) || kinds[1] != subjectOf(t, &projectsv1.AnnouncementAdded{}) {
		t.Fatalf("%d events, last %v", len(evs), kinds)
	}
	if _, err := repo.Get(ctx, "00000000000"); err == nil {
		t.Fatal("want not found")
	}
	// a batch of new and existing ids (and a duplicate): new ones are
	// copied, existing ones merged under locks
	q := g.Project(500)
	q2 := q
	q2.Announcements = append(append([]domain.Announcement(nil), q.Announcements...), domain.Announcement{Type: "W1", Date: q.Announcements[len(q.Announcements)-1].Date.AddDate(0, 0, 3)})
	st, err = repo.Upsert(ctx, 4, []domain.Project{batch[1], q, q2, batch[2]}, now)
	if err != nil || st.Created != 1 || st.Unchanged != 2 || st.Seen != 4 {
		t.Fatalf("mixed %+v %v", st, err)
	}
	if got, err := repo.Get(ctx, q.ID); err != nil || len(got.Announcements) != len(q2.Announcements) {
		t.Fatalf("mixed: %+v %v", got, err)
	}
}

// --- search against the brute-force oracle -------------------------------

type oracle struct{ rows []domain.Project }

func (o oracle) search(c domain.Criteria) []domain.Project {
	m := domain.NewMatcher(c)
	var out []domain.Project
	for i := range o.rows {
		if m.Match(&o.rows[i]) {
			out = append(out, o.rows[i])
		}
	}
	s := c.Sort
	if s == "" {
		s = domain.SortDate
	}
	if s == domain.SortRelevance && len(c.Terms().Positive()) <= 1 {
		s = domain.SortDate
	}
	sort.SliceStable(out, func(i, j int) bool { return m.Less(s, &out[i], &out[j]) })
	return out
}

func substr(r *rand.Rand, s string, min, max int) string {
	rs := []rune(s)
	n := min + r.IntN(max-min+1)
	if n > len(rs) {
		n = len(rs)
	}
	i := r.IntN(len(rs) - n + 1)
	return string(rs[i : i+n])
}

func TestSearchMatchesOracle(t *testing.T) {
	pool, _ := setup(t)
	ctx := context.Background()
	g := demo.New(99, time.Date(2026, 9, 30, 0, 0, 0, 0, domain.Bangkok))
	var all []domain.Project
	for i := 0; i < 3000; i++ {
		all = append(all, g.Project(i))
	}
	// hand-made rows: LIKE metacharacters, zero-width, ํา, Latin case
	extra := []string{"ซื้อวัสดุ 100% ใหม่ a_b", "จ้างเหมา\u200Bซ่อม\\แซม", "ซื้อน\u0E4D\u0E49\u0E32ดื่ม E-Bidding", "ซื้อ__ของ"}
	for i, name := range extra {
		p := domain.Project{ID: fmt.Sprintf("690990000%02d", i), Name: name, ProvinceCode: "10", MethodCode: "19",
			Announcements: []domain.Announcement{{Type: "D0", Date: domain.Date(2026, 9, 1)}}}
		p.Derive()
		all = append(all, p)
	}
	repo := postgres.New(pool, nil, postgres.Options{TotalCap: 1 << 30, SampleSize: 1000})
	for i := 0; i < len(all); i += 500 {
		if _, err := repo.Upsert(ctx, 0, all[i:min(i+500, len(all))], time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := pool.Exec(ctx, "ANALYZE projects"); err != nil {
		t.Fatal(err)
	}
	stored := make([]domain.Project, len(all))
	for i, p := range all {
		q, err := repo.Get(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		stored[i] = q
	}
	o := oracle{rows: stored}
	repos := map[string]*postgres.Repo{
		"auto":   repo,
		"walk":   postgres.New(pool, nil, postgres.Options{TotalCap: 1 << 30, ForcePlan: postgres.PlanWalk}),
		"bitmap": postgres.New(pool, nil, postgres.Options{TotalCap: 1 << 30, ForcePlan: postgres.PlanBitmap}),
		"filter": postgres.New(pool, nil, postgres.Options{TotalCap: 1 << 30, ForcePlan: postgres.PlanFilter}),
	}
	r := rand.New(rand.NewPCG(5, 6))
	fixed := []domain.Criteria{
		{Keyword: "100%"}, {Keyword: "a_b"}, {Keyword: "__"}, {Keyword: `\แ`}, {Keyword: "ซ่อมแซม"},
		{Keyword: "น้ำ"}, {Keyword: "e-bidding"}, {Keyword: "๒๕๖๘"}, {Keyword: "รถ"}, {Keyword: "สร้างถนน"},
		{Keyword: "คอมพิว"}, {AnyOf: []string{"รถ", "โดรน", "ถนนลูกรัง"}}, {NoneOf: []string{"ซื้อ"}},
		{Keyword: "ก"}, {Keyword: "zzzz"}, {AllOf: []string{"ถนน", "หมู่ที่ 3"}},
	}
	n := 0
	check := func(c domain.Criteria) {
		n++
		want := o.search(c)
		for name, rp := range repos {
			per := 1 + r.IntN(25)
			// page by cursor through up to 4 pages, and page 2 by number
			var got []domain.Project
			after := ""
			var first domain.ResultPage
			for pg := 0; pg < 4; pg++ {
				res, err := rp.Search(ctx, c, domain.PageRequest{PerPage: per, After: after})
				if err != nil {
					t.Fatalf("%s %+v: %v", name, c, err)
				}
				if pg == 0 {
					first = res
				}
				got = append(got, res.Items...)
				if res.NextCursor == "" {
					break
				}
				after = res.NextCursor
			}
			if first.Total != len(want) || first.TotalEstimated {
				t.Fatalf("%s %+v: total %d (est %v), oracle %d", name, c, first.Total, first.TotalEstimated, len(want))
			}
			lim := min(len(want), 4*per)
			if len(got) < lim {
				t.Fatalf("%s %+v: got %d rows, want %d", name, c, len(got), lim)
			}
			for i := 0; i < lim; i++ {
				if got[i].ID != want[i].ID {
					t.Fatalf("%s %+v (plan %s, per %d): row %d = %s, oracle %s", name, c, first.Plan, per, i, got[i].ID, want[i].ID)
				}
			}
			res2, err := rp.Search(ctx, c, domain.PageRequest{Page: 2, PerPage: per})
			if err != nil {
				t.Fatal(err)
			}
			for i, p := range res2.Items {
				if per+i >= len(want) || p.ID != want[per+i].ID {
					t.Fatalf("%s %+v: page 2 row %d = %s", name, c, i, p.ID)
				}
			}
		}
	}
	for _, c := range fixed {
		check(c)
	}
	for i := 0; i < 150; i++ {
		check(randomCriteria(r, stored))
	}
	t.Logf("%d criteria checked against the oracle with 4 plan policies", n)
}

func randomCriteria(r *rand.Rand, rows []domain.Project) domain.Criteria {
	title := func() string { return rows[r.IntN(len(rows))].Name }
	var c domain.Criteria
	switch r.IntN(6) {
	case 0:
		c.Keyword = substr(r, title(), 2, 2)
	case 1, 2:
		c.Keyword = substr(r, title(), 3, 8)
	case 3:
		c.AnyOf = []string{substr(r, title(), 2, 6), substr(r, title(), 3, 6), substr(r, title(), 3, 10)}
	case 4:
		c.AllOf = []string{substr(r, title(), 2, 5), substr(r, title(), 2, 5)}
	}
	if r.IntN(3) == 0 {
		c.NoneOf = []string{substr(r, title(), 2, 4)}
	}
	if r.IntN(3) == 0 {
		c.Provinces = []string{rows[r.IntN(len(rows))].ProvinceCode, rows[r.IntN(len(rows))].ProvinceCode}
	}
	if r.IntN(4) == 0 {
		c.Methods = []string{"16", "19"}[r.IntN(2):]
	}
	if r.IntN(5) == 0 {
		c.Statuses = []string{string(rows[r.IntN(len(rows))].Status)}
	}
	if r.IntN(6) == 0 {
		c.AnnouncementTypes = []string{"D0", "W0", "P0"}[r.IntN(3):]
	}
	if r.IntN(6) == 0 {
		c.BudgetYears = []int{rows[r.IntN(len(rows))].BudgetYear}
	}
	if r.IntN(6) == 0 {
		c.WorkTypes = []string{"02"}
	}
	if r.IntN(8) == 0 {
		c.Strategies = []string{"1", "2"}
	}
	if r.IntN(8) == 0 {
		c.Ministries = []string{"99"}
	}
	if r.IntN(8) == 0 {
		c.SubDepartments = []string{rows[r.IntN(len(rows))].SubAgencyName}
	}
	if r.IntN(8) == 0 {
		c.Departments = []string{rows[r.IntN(len(rows))].AgencyName}
	}
	if r.IntN(5) == 0 {
		f := domain.Date(2022+r.IntN(4), time.Month(1+r.IntN(12)), 1)
		to := f.AddDate(0, 6+r.IntN(12), 0)
		c.From, c.To = &f, &to
	}
	if r.IntN(5) == 0 {
		lo := domain.Money(r.Int64N(100000) * 100)
		hi := lo + domain.Money(r.Int64N(5000000)*100)
		c.MinBudget, c.MaxBudget = &lo, &hi
	}
	if r.IntN(12) == 0 {
		c.ProjectIDs = []string{rows[r.IntN(len(rows))].ID, rows[r.IntN(len(rows))].ID}
	}
	c.Sort = []domain.SortOrder{domain.SortDate, domain.SortBudget, domain.SortRelevance}[r.IntN(3)]
	// the deadline order and filters, counted from a day among the rows' deadlines
	if r.IntN(3) == 0 {
		c.Today = domain.Date(2024+r.IntN(3), time.Month(1+r.IntN(9)), 1+r.IntN(28))
		switch r.IntN(4) {
		case 0:
			c.ClosingWithin = 1 + r.IntN(30)
		case 1:
			f := c.Today.AddDate(0, 0, -r.IntN(60))
			to := f.AddDate(0, 0, r.IntN(90))
			c.DueFrom, c.DueTo = &f, &to
		}
		if r.IntN(3) > 0 {
			c.Sort = domain.SortDeadline
		}
	}
	return c
}

func TestTotalCapMarked(t *testing.T) {
	pool, _ := setup(t)
	ctx := context.Background()
	g := demo.New(3, time.Date(2026, 9, 30, 0, 0, 0, 0, domain.Bangkok))
	var all []domain.Project
	for i := 0; i < 1500; i++ {
		all = append(all, g.Project(i))
	}
	repo := postgres.New(pool, nil, postgres.Options{TotalCap: 50})
	if _, err := repo.Upsert(ctx, 0, all, time.Now()); err != nil {
		t.Fatal(err)
	}
	res, err := repo.Search(ctx, domain.Criteria{Keyword: "ซื้อ"}, domain.PageRequest{PerPage: 10})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TotalEstimated || res.Total <= 50 {
		t.Fatalf("total %d estimated %v", res.Total, res.TotalEstimated)
	}
	res, err = repo.Search(ctx, domain.Criteria{Keyword: "ซื้อ", ProjectIDs: []string{all[0].ID, all[1].ID}}, domain.PageRequest{PerPage: 1})
	if err != nil || res.TotalEstimated || res.Total > 2 {
		t.Fatalf("small total %d %v %v", res.Total, res.TotalEstimated, err)
	}
}

// TestSearchCountsWhatTheSampleMissed: a search whose sample holds none of
// its matches expects a short page, so its exact count is not sent with the
// page; when the page comes back full the count follows in a second round
// trip (search.go), and the total is the same exact one on every page.
func TestSearchCountsWhatTheSampleMissed(t *testing.T) {
	pool, _ := setup(t)
	ctx := context.Background()
	var all []domain.Project
	for i := 0; i < 400; i++ {
		name := fmt.Sprintf("ซื้อวัสดุสำนักงาน ชุดที่ %d", i)
		if i%20 == 0 {
			name = fmt.Sprintf("จ้างเหมาขุดลอกคลองพิเศษ ชุดที่ %d", i) // 20 matches of 400
		}
		p := domain.Project{ID: fmt.Sprintf("6909%07d", i), Name: name, ProvinceCode: "10", MethodCode: "19",
			Announcements: []domain.Announcement{{Type: "D0", Date: domain.Date(2026, 9, 1+i%28)}}}
		p.Derive()
		all = append(all, p)
	}
	for _, plan := range []string{"", postgres.PlanWalk, postgres.PlanFilter} {
		// one sample row: it misses the 20 matches 19 times in 20
		repo := postgres.New(pool, nil, postgres.Options{TotalCap: 1000, SampleSize: 1, ForcePlan: plan})
		if _, err := repo.Upsert(ctx, 0, all, time.Now()); err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for page := 1; page <= 3; page++ {
			res, err := repo.Search(ctx, domain.Criteria{Keyword: "ขุดลอกคลองพิเศษ", Provinces: []string{"10"}}, domain.PageRequest{Page: page, PerPage: 8})
			if err != nil {
				t.Fatal(err)
			}
			if res.Total != 20 || res.TotalEstimated {
				t.Fatalf("plan %q page %d: total %d (estimated %v), want exactly 20", plan, page, res.Total, res.TotalEstimated)
			}
			for _, p := range res.Items {
				if seen[p.ID] {
					t.Fatalf("plan %q page %d: %s again", plan, page, p.ID)
				}
				seen[p.ID] = true
			}
		}
		if len(seen) != 20 {
			t.Fatalf("plan %q: %d rows over three pages, want 20", plan, len(seen))
		}
	}
}
