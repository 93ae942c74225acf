package ports_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/jackc/pgx/v5/pgxpool"

	projectsv1 "bidradar/gen/projects/v1"
	"bidradar/gen/projects/v1/projectsv1connect"
	subscriptionv1 "bidradar/gen/subscription/v1"
	"bidradar/gen/subscription/v1/subscriptionv1connect"
	"bidradar/pkg/access"
	"bidradar/pkg/apperr"
	"bidradar/pkg/authn"
	"bidradar/pkg/events"
	"bidradar/pkg/outbox"
	"bidradar/pkg/pgdb"
	"bidradar/pkg/server"
	"bidradar/pkg/testutil/pgtest"
	"bidradar/services/projects/internal/adapters/egpsource"
	"bidradar/services/projects/internal/adapters/eventproto"
	"bidradar/services/projects/internal/adapters/postgres"
	"bidradar/services/projects/internal/adapters/quotaclient"
	"bidradar/services/projects/internal/app"
	"bidradar/services/projects/internal/domain"
	"bidradar/services/projects/internal/ports"
	"bidradar/services/projects/migrations"
)

// egp is a fake e-GP serving getProjectDetail answers per project id.
type egp struct {
	mu     sync.Mutex
	bodies map[string][]byte
	calls  map[string]int
}

func (e *egp) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("projectId")
	e.mu.Lock()
	e.calls[id]++
	b, ok := e.bodies[id]
	e.mu.Unlock()
	switch {
	case id == "69000000503":
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
	case !ok:
		_, _ = w.Write([]byte(`{"data":null}`))
	default:
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
	}
}

func (e *egp) set(id string, body []byte) {
	e.mu.Lock()
	e.bodies[id] = body
	e.mu.Unlock()
}

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("../adapters/egpsource/testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// quota is a fake subscription service: 3 search combinations a day and
// 30 a month for everybody, the tier's live look-ups a day (ConsumeQuota requires the caller's own token,
// as the real one does), and the plans of the tier table by user (free
// unless set).
type quota struct {
	subscriptionv1connect.UnimplementedSubscriptionServiceHandler
	mu   sync.Mutex
	used map[string]int
	tier map[string]string
}

var fakeTiers = map[string]*subscriptionv1.Tier{
	"free": {Tier: "free", Label: "ฟรี", CombinationLimits: &subscriptionv1.CombinationLimits{NormalSearchSave: 1}},
	"starter": {Tier: "starter", Label: "เริ่มต้น", Features: []string{"email_alerts"},
		CombinationLimits: &subscriptionv1.CombinationLimits{NormalSearchSave: 5, OvernightSearchSave: 5, ExploreLiveSearch: 10}},
	"pro": {Tier: "pro", Label: "มืออาชีพ", Features: []string{"email_alerts", "line_alerts", "ocds_export"},
		CombinationLimits: &subscriptionv1.CombinationLimits{NormalSearchSave: 30, OvernightSearchSave: 30, ExploreLiveSearch: 100}},
}

func (q *quota) setTier(user, tier string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.tier[user] = tier
}

func (q *quota) GetEntitlements(_ context.Context, req *connect.Request[subscriptionv1.GetEntitlementsRequest]) (*connect.Response[subscriptionv1.GetEntitlementsResponse], error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := &subscriptionv1.GetEntitlementsResponse{}
	for _, u := range req.Msg.GetUserIds() {
		t := q.tier[u]
		if t == "" {
			t = "free"
		}
		out.Users = append(out.Users, &subscriptionv1.UserEntitlements{UserId: u, Tier: fakeTiers[t]})
	}
	return connect.NewResponse(out), nil
}

func (q *quota) ConsumeQuota(_ context.Context, req *connect.Request[subscriptionv1.ConsumeQuotaRequest]) (*connect.Response[subscriptionv1.ConsumeQuotaResponse], error) {
	user := req.Msg.GetUserId()
	if req.Header().Get("Authorization") != "Bearer tok-"+user {
		return nil, connect.NewError(connect.CodeUnauthenticated, nil)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	limit := map[string]int{"search_combination": 3}[req.Msg.GetKind()]
	if req.Msg.GetKind() == "explore_live_search" {
		t := q.tier[user]
		if t == "" {
			t = "free"
		}
		limit = int(fakeTiers[t].GetCombinationLimits().GetExploreLiveSearch())
	}
	key := user + "/" + req.Msg.GetKind()
	next := max(q.used[key]+int(req.Msg.GetAmount()), 0)
	if req.Msg.GetAmount() > 0 && next > limit {
		return connect.NewResponse(&subscriptionv1.ConsumeQuotaResponse{
			Detail: "Limit reached: ค้นหาแบบรวมเงื่อนไขต่อวัน ครบ " + strconv.Itoa(limit) + " ครั้งแล้ว (แพ็กเกจฟรี)"}), nil
	}
	q.used[key] = next
	out := &subscriptionv1.ConsumeQuotaResponse{Allowed: true, RemainingToday: int32(limit - next), RemainingMonth: -1}
	if req.Msg.GetKind() == "search_combination" {
		out.RemainingMonth = int32(30 - next)
	}
	return connect.NewResponse(out), nil
}

type fixtureEnv struct {
	quota *quota
	h     *ports.Handler
	app   *app.App
	egp   *egp
	pool  *pgxpool.Pool
	clock *time.Time
	build func(quotaTarget string) (*ports.Handler, *app.App)
	// quotaTarget is the fake subscription service's address.
	quotaTarget string
}

func setup(t *testing.T) *fixtureEnv {
	t.Helper()
	ctx := context.Background()
	pool, err := pgdb.Open(ctx, pgtest.NewDatabase(t), "projects")
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
	fake := &egp{bodies: map[string][]byte{}, calls: map[string]int{}}
	fake.set("69099693138", fixture(t, "getProjectDetail-69099693138.json"))
	fake.set("68059426756", fixture(t, "getProjectDetail-68059426756.json"))
	fake.set("67019900012", fixture(t, "getProjectDetail-67019900012.cp874.json"))
	egpSrv := httptest.NewServer(fake)
	t.Cleanup(egpSrv.Close)

	q := &quota{used: map[string]int{}, tier: map[string]string{}}
	qSrv := httptest.NewUnstartedServer(http.NewServeMux())
	mux := qSrv.Config.Handler.(*http.ServeMux)
	mux.Handle(subscriptionv1connect.NewSubscriptionServiceHandler(q))
	qSrv.Config.Protocols = new(http.Protocols)
	qSrv.Config.Protocols.SetHTTP1(true)
	qSrv.Config.Protocols.SetUnencryptedHTTP2(true)
	qSrv.Start()
	t.Cleanup(qSrv.Close)

	now := time.Date(2026, 10, 1, 9, 0, 0, 0, time.UTC)
	e := &fixtureEnv{quota: q, egp: fake, pool: pool, clock: &now}
	e.build = func(target string) (*ports.Handler, *app.App) {
		log := slog.New(slog.NewTextHandler(io.Discard, nil))
		repo := postgres.New(pool, eventproto.Encoder{}, postgres.Options{})
		a, err := app.New(repo, repo, log)
		if err != nil {
			t.Fatal(err)
		}
		src := egpsource.New(egpSrv.URL + "/getProjectDetail")
		src.Sleep = func(context.Context, time.Duration) error { return nil }
		store := postgres.NewCriteriaStore(pool)
		q := quotaclient.New(server.H2CClient(), target, 2*time.Second) // the fake serves without the interceptor
		a.Configure(app.Extras{Source: src, Cooldowns: store, Criteria: store, Quota: q, Plans: q, Concurrency: 3})
		a.SetClock(func() time.Time { return *e.clock })
		return ports.NewHandler(a, nil, func(p domain.Project) any { return map[string]any{"ocid": p.ID} }), a
	}
	e.quotaTarget = strings.TrimPrefix(qSrv.URL, "http://")
	e.h, e.app = e.build(e.quotaTarget)
	return e
}

// as is a signed-in request context; the token is what the fake quota expects.
func as[T any](user string, msg *T) (context.Context, *connect.Request[T]) {
	req := connect.NewRequest(msg)
	req.Header().Set("Authorization", "Bearer tok-"+user)
	return authn.WithClaims(context.Background(), authn.Claims{UserID: user}), req
}

// wantErr checks the REST status an error maps to and a piece of its detail.
func wantErr(t *testing.T, err error, status int, detail string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %d %q", status, detail)
	}
	ce := apperr.ToConnect(err)
	if got := ce.Meta().Get(apperr.MetaHTTPCode); got != strconv.Itoa(status) {
		t.Fatalf("status %s, want %d (%v)", got, status, err)
	}
	if !strings.Contains(ce.Message(), detail) {
		t.Fatalf("detail %q lacks %q", ce.Message(), detail)
	}
}

func TestScrape(t *testing.T) {
	e := setup(t)
	e.quota.setTier("u1", "pro")
	scrape := func(ids ...string) (*projectsv1.ScrapeResponse, error) {
		ctx, req := as("u1", &projectsv1.ScrapeRequest{ProjectIds: ids})
		res, err := e.h.Scrape(ctx, req)
		if err != nil {
			return nil, err
		}
		return res.Msg, nil
	}
	_, err := e.h.Scrape(context.Background(), connect.NewRequest(&projectsv1.ScrapeRequest{ProjectIds: []string{"69099693138"}}))
	wantErr(t, err, 401, "Authentication required")
	_, err = scrape()
	wantErr(t, err, 400, "project_ids is required")
	_, err = scrape(" ", ",")
	wantErr(t, err, 400, "project id")
	_, err = scrape("69099693138", "12")
	wantErr(t, err, 400, `"12"`)
	wantErr(t, err, 400, "exactly 11 digits")
	_, err = scrape("6909969313a")
	wantErr(t, err, 400, "11 digits")
	many := make([]string, 101)
	for i := range many {
		many[i] = strconv.Itoa(69000000000 + i)
	}
	_, err = scrape(strings.Join(many, ","))
	wantErr(t, err, 400, "at most 100")

	// Thai digits, a comma-separated list and a duplicate.
	res, err := scrape("๖๙๐๙๙๖๙๓๑๓๘", "68059426756,67019900012", "69099693138", "69000000404", "69000000503")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range res.Results {
		got[r.ProjectId] = r.Status
	}
	want := map[string]string{"69099693138": "created", "68059426756": "created", "67019900012": "created",
		"69000000404": "not_found", "69000000503": "failed"}
	if len(res.Results) != 5 || len(got) != 5 {
		t.Fatalf("results %v", res.Results)
	}
	for id, s := range want {
		if got[id] != s {
			t.Errorf("%s: %s, want %s", id, got[id], s)
		}
	}
	if !strings.Contains(res.Message, "ใหม่ 3") {
		t.Errorf("message %q", res.Message)
	}
	if e.egp.calls["69000000503"] != 4 {
		t.Errorf("503 tried %d times, want 1 + 3 retries", e.egp.calls["69000000503"])
	}
	// Events went to the outbox with the rows.
	stored, err := outbox.Stored(context.Background(), e.pool)
	if err != nil {
		t.Fatal(err)
	}
	created, err := events.SubjectOf(&projectsv1.ProjectCreated{})
	if err != nil {
		t.Fatal(err)
	}
	events := 0
	for _, ev := range stored {
		if ev.Subject == created {
			events++
		}
	}
	if events != 3 {
		t.Errorf("%d project.created events, want 3", events)
	}
	var runSource string
	if err := e.pool.QueryRow(context.Background(), `SELECT source FROM ingest_runs ORDER BY id DESC LIMIT 1`).Scan(&runSource); err != nil || runSource != "egp-project" {
		t.Errorf("ingest run %q %v", runSource, err)
	}
	p, err := e.app.Get(context.Background(), "69099693138")
	if err != nil || p.Name == "" || p.Budget == nil || *p.Budget != 245000000 || p.Status != "open" {
		t.Fatalf("stored %+v %v", p, err)
	}

	// Again: unchanged; then e-GP publishes the winner: updated.
	res, err = scrape("69099693138")
	if err != nil || res.Results[0].Status != "unchanged" {
		t.Fatalf("rescrape %v %v", res, err)
	}
	e.egp.set("69099693138", []byte(`{"data":{"projectId":"69099693138","projectName":"ประกวดราคาจ้างก่อสร้างถนนคอนกรีตเสริมเหล็ก สายบ้านหนองบัว หมู่ที่ ๕ ตำบลหนองบัว","priceAgree":2390000,"announceDate":"2026-10-20","announceType":"W0","stepId":"X01","projectStatus":"A"}}`))
	res, err = scrape("69099693138")
	if err != nil || res.Results[0].Status != "updated" {
		t.Fatalf("winner %v %v", res, err)
	}
	p, _ = e.app.Get(context.Background(), "69099693138")
	if p.Status != "awarded" || len(p.Announcements) != 2 || p.Budget == nil || *p.Budget != 245000000 {
		t.Fatalf("after winner: status %s steps %d budget %v", p.Status, len(p.Announcements), p.Budget)
	}
}

// TestLiveSearchLimit: scrape and update-project-smart are live look-ups at
// e-GP (explore_live_search): a tier without them is 403 upgrade_required
// before e-GP is asked; a tier's day is one unit per project asked, and
// once used up both answer 409 'Limit reached' and fetch nothing; an
// answer within the refresh cooldown spends no unit.
func TestLiveSearchLimit(t *testing.T) {
	e := setup(t)
	scrape := func(ids ...string) error {
		ctx, req := as("u1", &projectsv1.ScrapeRequest{ProjectIds: ids})
		_, err := e.h.Scrape(ctx, req)
		return err
	}
	smart := func(id string) (*projectsv1.UpdateProjectSmartResponse, error) {
		ctx, req := as("u1", &projectsv1.UpdateProjectSmartRequest{ProjectId: id})
		res, err := e.h.UpdateProjectSmart(ctx, req)
		if err != nil {
			return nil, err
		}
		return res.Msg, nil
	}
	err := scrape("69099693138")
	wantErr(t, err, 403, "Upgrade required")
	var ae *apperr.Error
	if !errors.As(err, &ae) || ae.Slug != "upgrade_required" || e.egp.calls["69099693138"] != 0 {
		t.Fatalf("free user's scrape: %v, e-GP asked %d times", err, e.egp.calls["69099693138"])
	}
	_, err = smart("69099693138")
	wantErr(t, err, 403, "Upgrade required")

	e.quota.setTier("u1", "starter") // 10 a day
	if err := scrape("69099693138", "68059426756", "67019900012"); err != nil {
		t.Fatal(err)
	}
	many := make([]string, 8)
	for i := range many {
		many[i] = strconv.Itoa(69000000000 + i)
	}
	wantErr(t, scrape(many...), 409, "Limit reached") // 3 + 8 > 10: all or nothing
	if e.egp.calls["69000000000"] != 0 {
		t.Fatal("a refused scrape reached e-GP")
	}
	if err := scrape(many[:6]...); err != nil { // 9 used
		t.Fatal(err)
	}
	if r, err := smart("69099693138"); err != nil || r.Status != "success" { // 10 used
		t.Fatalf("smart %v %v", r, err)
	}
	if r, err := smart("69099693138"); err != nil || r.Status != "cooldown" { // within the cooldown: free
		t.Fatalf("cooldown %v %v", r, err)
	}
	_, err = smart("68059426756")
	wantErr(t, err, 409, "Limit reached")
	wantErr(t, scrape("68059426756"), 409, "Limit reached")
	// The refused refresh left 68059426756's cooldown unclaimed.
	e.quota.setTier("u1", "pro")
	if r, err := smart("68059426756"); err != nil || r.Status != "success" {
		t.Fatalf("after the upgrade %v %v", r, err)
	}
}

func TestUpdateProjectSmart(t *testing.T) {
	e := setup(t)
	e.quota.setTier("u1", "pro")
	smart := func(h *ports.Handler, id string) (*projectsv1.UpdateProjectSmartResponse, error) {
		ctx, req := as("u1", &projectsv1.UpdateProjectSmartRequest{ProjectId: id})
		res, err := h.UpdateProjectSmart(ctx, req)
		if err != nil {
			return nil, err
		}
		return res.Msg, nil
	}
	_, err := smart(e.h, "69099693138")
	wantErr(t, err, 404, "Project not found")
	_, err = smart(e.h, "123")
	wantErr(t, err, 400, "11 digits")
	_, err = e.h.UpdateProjectSmart(context.Background(), connect.NewRequest(&projectsv1.UpdateProjectSmartRequest{ProjectId: "69099693138"}))
	wantErr(t, err, 401, "Authentication")

	ctx, req := as("u1", &projectsv1.ScrapeRequest{ProjectIds: []string{"69099693138", "69000000503"}})
	if _, err := e.h.Scrape(ctx, req); err != nil {
		t.Fatal(err)
	}
	// 69000000503 is unknown: scrape failed, so nothing was stored.
	_, err = smart(e.h, "69000000503")
	wantErr(t, err, 404, "Project not found")

	r, err := smart(e.h, "69099693138")
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != "success" || r.Data.ActionRequired != "none" || r.Data.CanUpdate || r.Data.TimeUntilNextUpdate != 600 {
		t.Fatalf("first refresh %v", r)
	}
	*e.clock = e.clock.Add(4 * time.Minute)
	r, err = smart(e.h, "69099693138")
	if err != nil || r.Status != "cooldown" || r.Data.CanUpdate || r.Data.ActionRequired != "wait" || r.Data.TimeUntilNextUpdate != 360 {
		t.Fatalf("cooldown %v %v", r, err)
	}
	// Another replica (a second app on the same database) sees the same cooldown.
	h2, a2 := e.build(e.quotaTarget)
	a2.SetClock(func() time.Time { return e.clock.Add(time.Minute) })
	r, err = smart(h2, "69099693138")
	if err != nil || r.Status != "cooldown" || r.Data.TimeUntilNextUpdate != 300 {
		t.Fatalf("replica %v %v", r, err)
	}
	// After the cooldown, e-GP has news: updated.
	*e.clock = e.clock.Add(7 * time.Minute)
	e.egp.set("69099693138", []byte(`{"data":{"projectId":"69099693138","projectName":"ประกวดราคาจ้างก่อสร้างถนนคอนกรีตเสริมเหล็ก","announceDate":"2026-10-20","announceType":"W0"}}`))
	r, err = smart(e.h, "69099693138")
	if err != nil || r.Status != "success" || r.Data.ActionRequired != "updated" {
		t.Fatalf("after cooldown %v %v", r, err)
	}
	// A failing source does not use up the cooldown.
	*e.clock = e.clock.Add(11 * time.Minute)
	e.egp.set("69099693138", []byte(`not json`))
	r, err = smart(e.h, "69099693138")
	if err != nil || r.Status != "error" || !r.Data.CanUpdate {
		t.Fatalf("source failure %v %v", r, err)
	}
	e.egp.set("69099693138", fixture(t, "getProjectDetail-69099693138.json"))
	r, err = smart(e.h, "69099693138")
	if err != nil || r.Status != "success" {
		t.Fatalf("retry after failure %v %v", r, err)
	}
}

func toDo(e *fixtureEnv, user string, msg *projectsv1.ToDoSearchRequest) (*projectsv1.ToDoSearchResponse, error) {
	ctx, req := as(user, msg)
	res, err := e.h.ToDoSearch(ctx, req)
	if err != nil {
		return nil, err
	}
	return res.Msg, nil
}

func f64(v float64) *float64 { return &v }

func TestToDoSearchValidation(t *testing.T) {
	e := setup(t)
	cases := []struct {
		name   string
		msg    *projectsv1.ToDoSearchRequest
		status int
		detail string
	}{
		{"empty", &projectsv1.ToDoSearchRequest{}, 422, "at least one search criterion"},
		{"blank keywords", &projectsv1.ToDoSearchRequest{KeyWord_Incl_Or: []string{" ", ","}}, 422, "at least one"},
		{"min above max", &projectsv1.ToDoSearchRequest{ProjectMoneyS_User: f64(500000), ProjectMoneyE_User: f64(1000)}, 422, "minimum budget"},
		{"dates reversed", &projectsv1.ToDoSearchRequest{AnnouSDate_User: "2026-10-01", AnnouEDate_User: "2026-09-01"}, 422, "before"},
		{"thai date", &projectsv1.ToDoSearchRequest{AnnouSDate_User: "1 ต.ค. 69"}, 400, "ISO date"},
		{"bad id", &projectsv1.ToDoSearchRequest{ProjectId_User: []string{"1234"}}, 400, "11 digits"},
		{"search type", &projectsv1.ToDoSearchRequest{KeyWord_Incl_Or: []string{"ถนน"}, SearchType: "daily"}, 400, "search_type"},
		{"announce type", &projectsv1.ToDoSearchRequest{AnnouType_UserRequired: []string{"ZZ"}}, 400, "announcement type"},
		{"budget year", &projectsv1.ToDoSearchRequest{BudgetYear_User: []string{"next"}}, 400, "budget year"},
		{"C.E. year", &projectsv1.ToDoSearchRequest{BudgetYear_User: []string{"2026"}}, 400, "Buddhist-era"},
		{"negative", &projectsv1.ToDoSearchRequest{ProjectMoneyS_User: f64(-1)}, 400, "negative"},
	}
	for _, c := range cases {
		_, err := toDo(e, "u1", c.msg)
		t.Run(c.name, func(t *testing.T) { wantErr(t, err, c.status, c.detail) })
	}
	_, err := e.h.ToDoSearch(context.Background(), connect.NewRequest(&projectsv1.ToDoSearchRequest{KeyWord_Incl_Or: []string{"ถนน"}}))
	wantErr(t, err, 401, "Authentication")
	// Invalid payloads consumed nothing: three saves still fit.
	e.quota.setTier("u1", "starter")
	for i := 0; i < 3; i++ {
		if _, err := toDo(e, "u1", &projectsv1.ToDoSearchRequest{KeyWord_Incl_Or: []string{"ถนน" + strconv.Itoa(i)}}); err != nil {
			t.Fatalf("save %d: %v", i+1, err)
		}
	}
}

func TestSavedCriteriaLifecycle(t *testing.T) {
	e := setup(t)
	e.quota.setTier("u1", "starter")
	ctx, req := as("u1", &projectsv1.ScrapeRequest{ProjectIds: []string{"69099693138", "68059426756", "67019900012"}})
	if _, err := e.h.Scrape(ctx, req); err != nil {
		t.Fatal(err)
	}
	first, err := toDo(e, "u1", &projectsv1.ToDoSearchRequest{KeyWord_Incl_Or: []string{"ถนน,คอมพิวเตอร์"}, AnnouSDate_User: "2025-01-01"})
	if err != nil {
		t.Fatal(err)
	}
	if first.CriteriaId == "" || first.Message != "บันทึกเงื่อนไขการค้นหาแล้ว" || first.MatchCount != 2 || !strings.Contains(first.Detail, "วันนี้บันทึกได้อีก 2 ครั้ง") {
		t.Fatalf("save: %v", first)
	}
	*e.clock = e.clock.Add(time.Second)
	second, err := toDo(e, "u1", &projectsv1.ToDoSearchRequest{Name: "  งาน  ก่อสร้าง ", ProjectMoneyS_User: f64(1000000), SearchType: "normal"})
	if err != nil || second.MatchCount != 1 {
		t.Fatalf("second save %v %v", second, err)
	}
	*e.clock = e.clock.Add(time.Second)
	if _, err := toDo(e, "u1", &projectsv1.ToDoSearchRequest{ProjectId_User: []string{"๖๗๐๑๙๙๐๐๐๑๒"}}); err != nil {
		t.Fatal(err)
	}
	_, err = toDo(e, "u1", &projectsv1.ToDoSearchRequest{KeyWord_Incl_Or: []string{"ถนน"}})
	wantErr(t, err, 409, "Limit reached")

	// Status indicators from the real quota state.
	check := func(user, action string) string {
		ctx, req := as(user, &projectsv1.CheckStatusIndicatorRequest{UserAction: action})
		res, err := e.h.CheckStatusIndicator(ctx, req)
		if err != nil {
			t.Fatalf("check %s: %v", action, err)
		}
		if res.Msg.Message == "" {
			t.Fatalf("no message for %s", res.Msg.StatusCode)
		}
		return res.Msg.StatusCode
	}
	if s := check("u1", "search"); s != "DAILY_LIMIT_EXCEEDED" {
		t.Errorf("after 3 saves: %s", s)
	}
	if s := check("u2", ""); s != "SEARCH_AVAILABLE" {
		t.Errorf("fresh user: %s", s)
	}
	ctx, creq := as("u1", &projectsv1.CheckStatusIndicatorRequest{UserAction: "explode"})
	_, err = e.h.CheckStatusIndicator(ctx, creq)
	wantErr(t, err, 400, "user_action")

	// Overnight: in the starter plan; the daily search combinations are
	// not consumed by it.
	*e.clock = e.clock.Add(time.Second)
	night, err := toDo(e, "u1", &projectsv1.ToDoSearchRequest{KeyWord_Incl_And: []string{"ถนน"}, SearchType: "overnight"})
	if err != nil || !strings.Contains(night.Detail, "ทุกคืน") || !strings.Contains(night.Detail, "อีก 4 รายการ") {
		t.Fatalf("overnight %v %v", night, err)
	}
	if s := check("u1", "overnight"); s != "OVERNIGHT_SEARCH_AVAILABLE" {
		t.Errorf("overnight status %s", s)
	}
	// The plan lapses to free: nothing saved goes, no new overnight search.
	e.quota.setTier("u1", "free")
	_, err = toDo(e, "u1", &projectsv1.ToDoSearchRequest{KeyWord_Incl_And: []string{"น้ำ"}, SearchType: "overnight"})
	wantErr(t, err, 403, "Upgrade required")
	if s := check("u1", "overnight"); s != "OVERNIGHT_LIMIT_EXCEEDED" {
		t.Errorf("overnight status %s", s)
	}
	// Recall: the list, newest first.
	ctx, rreq := as("u1", &projectsv1.RecallSaveCriteriaRequest{})
	list, err := e.h.RecallSaveCriteria(ctx, rreq)
	if err != nil {
		t.Fatal(err)
	}
	cs := list.Msg.Criteria
	if len(cs) != 4 || cs[0].CriteriaId != night.CriteriaId || cs[3].CriteriaId != first.CriteriaId || cs[2].Name != "งาน ก่อสร้าง" {
		t.Fatalf("list %v", cs)
	}
	if got := cs[3].Criteria.KeyWord_Incl_Or; len(got) != 2 || got[0] != "ถนน" || cs[3].Criteria.AnnouSDate_User != "2025-01-01" {
		t.Fatalf("stored payload %v", cs[3].Criteria)
	}
	if cs[2].Criteria.GetProjectMoneyS_User() != 1000000 || cs[3].LastMatchCount != 2 {
		t.Fatalf("budget %v count %d", cs[2].Criteria.ProjectMoneyS_User, cs[3].LastMatchCount)
	}

	// Re-run with paging; the run is recorded.
	*e.clock = e.clock.Add(time.Hour)
	ctx, rreq = as("u1", &projectsv1.RecallSaveCriteriaRequest{CriteriaId: first.CriteriaId, Page: 2, PerPage: 1})
	run, err := e.h.RecallSaveCriteria(ctx, rreq)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Msg.Data) != 1 || run.Msg.Pagination.Total != 2 || run.Msg.Pagination.Page != 2 || !run.Msg.Pagination.HasPrev ||
		len(run.Msg.Criteria) != 1 || !run.Msg.Criteria[0].LastRunAt.AsTime().Equal(*e.clock) {
		t.Fatalf("re-run %v", run.Msg)
	}

	// Another user's criteria does not exist for u2.
	for _, id := range []string{first.CriteriaId, "not-a-uuid", "00000000-0000-0000-0000-000000000000"} {
		ctx, rreq = as("u2", &projectsv1.RecallSaveCriteriaRequest{CriteriaId: id})
		_, err = e.h.RecallSaveCriteria(ctx, rreq)
		wantErr(t, err, 404, "Search criteria not found")
		ctx, dreq := as("u2", &projectsv1.DeleteSearchCriteriaRequest{CriteriaId: id})
		_, err = e.h.DeleteSearchCriteria(ctx, dreq)
		wantErr(t, err, 404, "Search criteria not found")
	}
	ctx, dreq := as("u1", &projectsv1.DeleteSearchCriteriaRequest{CriteriaId: night.CriteriaId})
	if _, err := e.h.DeleteSearchCriteria(ctx, dreq); err != nil {
		t.Fatal(err)
	}
	e.quota.setTier("u1", "starter")
	if _, err := toDo(e, "u1", &projectsv1.ToDoSearchRequest{KeyWord_Incl_And: []string{"น้ำ"}, SearchType: "overnight"}); err != nil {
		t.Fatalf("overnight back on starter: %v", err)
	}
}

// TestSavedSearchLimits: the free plan holds one normal search and no
// overnight one; the same criteria twice is refused with its own reason;
// a downgrade keeps every search, refuses new ones and leaves the kept
// ones editable and deletable.
func TestSavedSearchLimits(t *testing.T) {
	e := setup(t)
	reason := func(err error) string { return apperr.ToConnect(err).Meta().Get(apperr.MetaReason) }
	first, err := toDo(e, "u1", &projectsv1.ToDoSearchRequest{Name: "ถนน", KeyWord_Incl_Or: []string{"ถนน", "สะพาน"}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = toDo(e, "u1", &projectsv1.ToDoSearchRequest{KeyWord_Incl_Or: []string{"น้ำ"}})
	wantErr(t, err, 409, "Limit reached")
	if r := reason(err); r != "saved-search-limit" {
		t.Fatalf("reason %q", r)
	}
	_, err = toDo(e, "u1", &projectsv1.ToDoSearchRequest{Name: "อีกชื่อ", KeyWord_Incl_Or: []string{"สะพาน", " ถนน "}})
	wantErr(t, err, 409, "identical search")
	if r := reason(err); r != "duplicate-search" {
		t.Fatalf("reason %q", r)
	}
	_, err = toDo(e, "u1", &projectsv1.ToDoSearchRequest{KeyWord_Incl_Or: []string{"น้ำ"}, SearchType: "overnight"})
	wantErr(t, err, 403, "Upgrade required")
	if r := reason(err); r != "upgrade_required" {
		t.Fatalf("reason %q", r)
	}
	// The refusals consumed no search combination: two are left today.
	ctx, creq := as("u1", &projectsv1.CheckStatusIndicatorRequest{UserAction: "search"})
	if st, err := e.h.CheckStatusIndicator(ctx, creq); err != nil || !strings.Contains(st.Msg.Message, "อีก 2 ครั้ง") {
		t.Fatalf("status %v %v", st, err)
	}

	// Starter: room for more; then back to free with two held.
	e.quota.setTier("u1", "starter")
	var ids []string
	for _, w := range []string{"น้ำ"} {
		r, err := toDo(e, "u1", &projectsv1.ToDoSearchRequest{KeyWord_Incl_Or: []string{w}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.CriteriaId)
	}
	e.quota.setTier("u1", "free")
	_, err = toDo(e, "u1", &projectsv1.ToDoSearchRequest{KeyWord_Incl_Or: []string{"ท่อ"}})
	wantErr(t, err, 409, "Limit reached")
	ctx, ureq := as("u1", &projectsv1.UpdateSearchCriteriaRequest{CriteriaId: ids[0], Name: "น้ำประปา", Criteria: &projectsv1.Criteria{KeyWord_Incl_Or: []string{"น้ำประปา"}}})
	if _, err := e.h.UpdateSearchCriteria(ctx, ureq); err != nil {
		t.Fatalf("editing a kept search: %v", err)
	}
	ctx, ureq = as("u1", &projectsv1.UpdateSearchCriteriaRequest{CriteriaId: ids[0], Criteria: &projectsv1.Criteria{KeyWord_Incl_Or: []string{"ถนน", "สะพาน"}}})
	_, err = e.h.UpdateSearchCriteria(ctx, ureq)
	wantErr(t, err, 409, "identical search")
	ctx, rreq := as("u1", &projectsv1.RecallSaveCriteriaRequest{})
	if list, err := e.h.RecallSaveCriteria(ctx, rreq); err != nil || len(list.Msg.Criteria) != 2 {
		t.Fatalf("kept searches %v %v", list, err)
	}
	for _, id := range append(ids, first.CriteriaId) {
		ctx, dreq := as("u1", &projectsv1.DeleteSearchCriteriaRequest{CriteriaId: id})
		if _, err := e.h.DeleteSearchCriteria(ctx, dreq); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := toDo(e, "u1", &projectsv1.ToDoSearchRequest{KeyWord_Incl_Or: []string{"ท่อ"}}); err != nil {
		t.Fatalf("a save once room is made: %v", err)
	}
}

// TestExportOcdsByPlan: the OCDS export is for the plans that include it.
func TestExportOcdsByPlan(t *testing.T) {
	e := setup(t)
	ctx, req := as("loader", &projectsv1.ScrapeRequest{ProjectIds: []string{"69099693138"}})
	e.quota.setTier("loader", "pro")
	if _, err := e.h.Scrape(ctx, req); err != nil {
		t.Fatal(err)
	}
	export := func(user string) error {
		ctx, req := as(user, &projectsv1.ExportOcdsRequest{ProjectId: "69099693138"})
		_, err := e.h.ExportOcds(ctx, req)
		return err
	}
	wantErr(t, export("u-free"), 403, "Upgrade required")
	e.quota.setTier("u-starter", "starter")
	wantErr(t, export("u-starter"), 403, "Upgrade required")
	e.quota.setTier("u-pro", "pro")
	if err := export("u-pro"); err != nil {
		t.Fatalf("pro export: %v", err)
	}
	_, err := e.h.ExportOcds(context.Background(), connect.NewRequest(&projectsv1.ExportOcdsRequest{ProjectId: "69099693138"}))
	wantErr(t, err, 401, "Authentication")
	h, _ := e.build("127.0.0.1:1")
	ctx, oreq := as("u-pro", &projectsv1.ExportOcdsRequest{ProjectId: "69099693138"})
	_, err = h.ExportOcds(ctx, oreq)
	wantErr(t, err, 503, "unavailable")
}

// GetSearchOwners (internal) names the searches of an instant alert: the
// owner and name of each key that exists, a deleted or unknown one left
// out; keys that are not 16 bytes each, or too many, are a 400.
func TestGetSearchOwners(t *testing.T) {
	e := setup(t)
	e.quota.setTier("u1", "starter")
	var keys []byte
	ids := map[string]string{} // id -> "owner name"
	for i, s := range []struct{ user, name string }{{"u1", "ถนน ขอนแก่น"}, {"u1", "ประปา"}, {"u2", "คอมพิวเตอร์"}} {
		*e.clock = e.clock.Add(time.Second)
		res, err := toDo(e, s.user, &projectsv1.ToDoSearchRequest{Name: s.name, KeyWord_Incl_And: []string{"งาน" + strconv.Itoa(i)}})
		if err != nil {
			t.Fatal(err)
		}
		k, ok := domain.ParseSearchKey(res.CriteriaId)
		if !ok {
			t.Fatal(res.CriteriaId)
		}
		keys = append(keys, k[:]...)
		ids[res.CriteriaId] = s.user + " " + s.name
	}
	deleted := ""
	for id, who := range ids {
		if who == "u1 ประปา" {
			deleted = id
		}
	}
	before, err := e.h.GetSearchOwners(context.Background(), connect.NewRequest(&projectsv1.GetSearchOwnersRequest{CriteriaKeys: keys}))
	if err != nil || len(before.Msg.Searches) != 3 || before.Msg.CriteriaVersion <= 0 {
		t.Fatalf("before the delete: %v %v", before, err)
	}
	ctx, dreq := as("u1", &projectsv1.DeleteSearchCriteriaRequest{CriteriaId: deleted})
	if _, err := e.h.DeleteSearchCriteria(ctx, dreq); err != nil {
		t.Fatal(err)
	}
	delete(ids, deleted)
	unknown, _ := domain.ParseSearchKey("00000000-0000-4000-8000-000000000000")
	res, err := e.h.GetSearchOwners(context.Background(), connect.NewRequest(&projectsv1.GetSearchOwnersRequest{CriteriaKeys: append(keys, unknown[:]...)}))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range res.Msg.Searches {
		got[domain.SearchKey(s.CriteriaKey).String()] = s.UserId + " " + s.Name
	}
	if len(got) != 2 || got[deleted] != "" {
		t.Fatalf("owners %v, want %v", got, ids)
	}
	// The answer says which version of the searches it read: the delete moved it.
	if res.Msg.CriteriaVersion <= before.Msg.CriteriaVersion {
		t.Fatalf("version %d after a delete, %d before", res.Msg.CriteriaVersion, before.Msg.CriteriaVersion)
	}
	for id, who := range ids {
		if got[id] != who {
			t.Fatalf("owners %v, want %v", got, ids)
		}
	}
	_, err = e.h.GetSearchOwners(context.Background(), connect.NewRequest(&projectsv1.GetSearchOwnersRequest{CriteriaKeys: keys[:20]}))
	wantErr(t, err, 400, "16 bytes")
	_, err = e.h.GetSearchOwners(context.Background(), connect.NewRequest(&projectsv1.GetSearchOwnersRequest{CriteriaKeys: make([]byte, 16*(domain.MaxMatchesPerEvent+1))}))
	wantErr(t, err, 400, "at most")
	res, err = e.h.GetSearchOwners(context.Background(), connect.NewRequest(&projectsv1.GetSearchOwnersRequest{}))
	if err != nil || len(res.Msg.Searches) != 0 || res.Msg.CriteriaVersion != before.Msg.CriteriaVersion+1 {
		t.Fatalf("no keys: %v %v", res, err)
	}
}

func TestQuotaUnreachable(t *testing.T) {
	e := setup(t)
	h, _ := e.build("127.0.0.1:1")
	ctx, req := as("u1", &projectsv1.ToDoSearchRequest{KeyWord_Incl_Or: []string{"ถนน"}})
	_, err := h.ToDoSearch(ctx, req)
	wantErr(t, err, 503, "Service is currently unavailable. Please try again later.")
	ctx, creq := as("u1", &projectsv1.CheckStatusIndicatorRequest{UserAction: "search"})
	res, err := h.CheckStatusIndicator(ctx, creq)
	if err != nil || res.Msg.StatusCode != "UNKNOWN_ERROR" {
		t.Fatalf("status without subscription %v %v", res, err)
	}
	// Nothing was saved.
	ctx, rreq := as("u1", &projectsv1.RecallSaveCriteriaRequest{})
	list, err := h.RecallSaveCriteria(ctx, rreq)
	if err != nil || len(list.Msg.Criteria) != 0 {
		t.Fatalf("list %v %v", list, err)
	}
}

func TestStatusIndicatorsList(t *testing.T) {
	t.Parallel()
	h := ports.NewHandler(nil, nil, nil)
	res, err := h.ListStatusIndicators(context.Background(), connect.NewRequest(&projectsv1.ListStatusIndicatorsRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	levels := map[string]string{}
	for _, s := range res.Msg.StatusCodes {
		if s.Message == "" {
			t.Errorf("%s has no message", s.StatusCode)
		}
		levels[s.StatusCode] = s.Level
	}
	for code, level := range map[string]string{"SEARCH_CRITERIA_SAVED": "success", "DAILY_LIMIT_EXCEEDED": "warning",
		"MONTHLY_LIMIT_EXCEEDED": "warning", "DAILY_MONTHLY_LIMIT_EXCEEDED": "error", "OVERNIGHT_LIMIT_EXCEEDED": "warning",
		"UNKNOWN_ERROR": "error"} {
		if levels[code] != level {
			t.Errorf("%s: level %q, want %q", code, levels[code], level)
		}
	}
	policy, err := access.ForService(projectsv1connect.ProjectsServiceName)
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := policy.Rule(projectsv1connect.ProjectsServiceListStatusIndicatorsProcedure); r.Audience != access.Public {
		t.Error("ListStatusIndicators is not public")
	}
}
