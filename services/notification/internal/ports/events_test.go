package ports_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"google.golang.org/protobuf/proto"

	projectsv1 "bidradar/gen/projects/v1"
	"bidradar/pkg/events"
	"bidradar/pkg/testutil/pgtest"
	"bidradar/services/notification/internal/adapters/postgres"
	"bidradar/services/notification/internal/app"
	"bidradar/services/notification/internal/domain"
	"bidradar/services/notification/internal/ports"
	"bidradar/services/notification/notificationsvc"
)

const (
	ann = "11111111-1111-4111-8111-111111111111"
	bob = "22222222-2222-4222-8222-222222222222"
)

// newApp is the service's use cases over a database of their own.
func newApp(t testing.TB) (*pgxpool.Pool, *app.App) {
	t.Helper()
	pool, err := notificationsvc.Open(context.Background(), pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool, app.New(postgres.New(pool), nil)
}

// matched hands a project.matched payload to h as the service's consumer
// does: decoded first, a payload that does not decode refused for good.
func matched(t testing.TB, h *ports.Events) func(ctx context.Context, eventID string, data []byte) error {
	t.Helper()
	c := events.Durable("notification-projects", events.On(h.ProjectMatched))
	subject, err := events.SubjectOf(&projectsv1.ProjectMatched{})
	if err != nil || c.Err() != nil {
		t.Fatal(err, c.Err())
	}
	return func(ctx context.Context, eventID string, data []byte) error {
		return c.Handle(ctx, subject, eventID, data)
	}
}

func marshal(t testing.TB, m proto.Message) []byte {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// projects.v1.ProjectMatched: a good event alerts each user once (also
// when redelivered), with its matches grouped by user or, from an older
// producer, one by one; a payload that does not decode, names no project,
// a user that is not a user id or ids that are not 16 bytes a search is
// permanent and writes nothing.
func TestProjectMatchedEvent(t *testing.T) {
	ctx := context.Background()
	pool, a := newApp(t)
	handle := matched(t, ports.NewEvents(a, nil))
	budget := int64(120000)
	key := func(b byte) []byte { return []byte{b, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, b} }
	good := &projectsv1.ProjectMatched{
		EventId: "pm-1",
		Project: &projectsv1.MatchedProject{ProjectId: "69222222222", ProjectName: "จัดซื้อครุภัณฑ์", AgencyName: "อบต.นา", BudgetSatang: &budget},
		Users: []*projectsv1.UserMatches{
			{UserId: ann, CriteriaIds: append(key(1), key(2)...), CriteriaNames: []string{"ครุภัณฑ์", "จัดซื้อ"}},
			{UserId: bob, CriteriaIds: key(3), CriteriaNames: []string{"อบต."}},
		},
	}
	older := &projectsv1.ProjectMatched{
		EventId: "pm-old",
		Project: &projectsv1.MatchedProject{ProjectId: "69111111111", ProjectName: "จ้างก่อสร้างถนน"},
		Matches: []*projectsv1.SearchMatch{
			{UserId: ann, CriteriaId: "c1", CriteriaName: "ถนน"},
			{UserId: ann, CriteriaId: "c1", CriteriaName: "ถนน"},
			{UserId: ann, CriteriaId: "c2", CriteriaName: "ก่อสร้าง"},
			{UserId: bob, CriteriaId: "c3", CriteriaName: "จ้าง"},
		},
	}
	bad := map[string][]byte{
		"not protobuf": []byte("\xff\xff\xff"),
		"no project": marshal(t, &projectsv1.ProjectMatched{EventId: "pm-2",
			Matches: []*projectsv1.SearchMatch{{UserId: ann, CriteriaId: "c1"}}}),
		"empty project id": marshal(t, &projectsv1.ProjectMatched{EventId: "pm-3", Project: &projectsv1.MatchedProject{ProjectName: "x"},
			Matches: []*projectsv1.SearchMatch{{UserId: ann, CriteriaId: "c1"}}}),
		"bad user id": marshal(t, &projectsv1.ProjectMatched{EventId: "pm-4", Project: &projectsv1.MatchedProject{ProjectId: "69333333333"},
			Matches: []*projectsv1.SearchMatch{{UserId: bob, CriteriaId: "c3"}, {UserId: "bob'; --", CriteriaId: "c1"}}}),
		"bad user id, grouped": marshal(t, &projectsv1.ProjectMatched{EventId: "pm-5", Project: &projectsv1.MatchedProject{ProjectId: "69333333333"},
			Users: []*projectsv1.UserMatches{{UserId: "bob'; --", CriteriaIds: key(1), CriteriaNames: []string{"x"}}}}),
		"ids not 16 bytes a search": marshal(t, &projectsv1.ProjectMatched{EventId: "pm-6", Project: &projectsv1.MatchedProject{ProjectId: "69333333333"},
			Users: []*projectsv1.UserMatches{{UserId: ann, CriteriaIds: key(1)[:15], CriteriaNames: []string{"x"}}}}),
		"a name without an id": marshal(t, &projectsv1.ProjectMatched{EventId: "pm-7", Project: &projectsv1.MatchedProject{ProjectId: "69333333333"},
			Users: []*projectsv1.UserMatches{{UserId: ann, CriteriaIds: key(1), CriteriaNames: []string{"x", "y"}}}}),
	}
	for name, data := range bad {
		if err := handle(ctx, "bad-"+name, data); !errors.Is(err, events.ErrPermanent) {
			t.Errorf("%s: %v, want permanent", name, err)
		}
	}
	for range 2 {
		for _, ev := range []*projectsv1.ProjectMatched{older, good} {
			if err := handle(ctx, ev.EventId, marshal(t, ev)); err != nil {
				t.Fatal(err)
			}
		}
	}
	var rows int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM notifications`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows != 4 {
		t.Fatalf("%d notifications, want 4 (one per user and event)", rows)
	}
	l, err := a.List(ctx, ann, domain.ListFilter{}, domain.Page{})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != 2 || l.Items[0].Title != `โครงการใหม่ตรงกับ "ครุภัณฑ์" และอีก 1 การค้นหา` ||
		l.Items[0].Message != "จัดซื้อครุภัณฑ์ — อบต.นา งบประมาณ 1,200.00 บาท" ||
		l.Items[1].Title != `โครงการใหม่ตรงกับ "ถนน" และอีก 1 การค้นหา` {
		t.Fatalf("ann's bell: %+v", l.Items)
	}
}

// fakeOwners is the projects service's lookup of search owners.
type fakeOwners struct {
	owners map[[16]byte]domain.SearchOwner
	err    error
	asked  int
	asOf   int64 // of the last call
}

func (f *fakeOwners) Owners(_ context.Context, keys [][16]byte, asOf int64) (map[[16]byte]domain.SearchOwner, error) {
	f.asked++
	f.asOf = asOf
	if f.err != nil {
		return nil, f.err
	}
	out := map[[16]byte]domain.SearchOwner{}
	for _, k := range keys {
		if o, ok := f.owners[k]; ok {
			out[k] = o
		}
	}
	return out, nil
}

// A project.matched event naming its searches by key: their owners and
// names are looked up, each user is told once, titled after their first
// search; a search deleted since (not found) or whose owner is not a user
// id is left out. A failed lookup is retried (not permanent) and writes
// nothing; keys that are not 16 bytes each are permanent.
func TestProjectMatchedKeys(t *testing.T) {
	ctx := context.Background()
	pool, a := newApp(t)
	key := func(b byte) [16]byte { return [16]byte{b, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, b} }
	owners := &fakeOwners{owners: map[[16]byte]domain.SearchOwner{
		key(1): {UserID: ann, Name: "ครุภัณฑ์"}, key(2): {UserID: ann, Name: "จัดซื้อ"},
		key(3): {UserID: bob, Name: "อบต."}, key(5): {UserID: "bob'; --", Name: "x"},
	}}
	handle := matched(t, ports.NewEvents(a, owners))
	var keys []byte
	for _, b := range []byte{1, 2, 3, 4, 5} { // 4: deleted since
		k := key(b)
		keys = append(keys, k[:]...)
	}
	ev := marshal(t, &projectsv1.ProjectMatched{EventId: "pk-1", CriteriaKeys: keys, CriteriaVersion: 42,
		Project: &projectsv1.MatchedProject{ProjectId: "69444444444", ProjectName: "จัดซื้อครุภัณฑ์", AgencyName: "อบต.นา"}})
	count := func() int {
		var n int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM notifications`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	owners.err = errors.New("projects unavailable")
	if err := handle(ctx, "pk-1", ev); err == nil || errors.Is(err, events.ErrPermanent) {
		t.Fatalf("lookup failed: %v, want a retry", err)
	}
	if n := count(); n != 0 {
		t.Fatalf("%d notifications after a failed lookup", n)
	}
	owners.err = nil
	for range 2 { // redelivered: still one each
		if err := handle(ctx, "pk-1", ev); err != nil {
			t.Fatal(err)
		}
	}
	if n := count(); n != 2 {
		t.Fatalf("%d notifications, want 2 (ann and bob)", n)
	}
	if owners.asOf != 42 {
		t.Fatalf("looked up as of version %d, want the event's 42", owners.asOf)
	}
	l, err := a.List(ctx, ann, domain.ListFilter{}, domain.Page{})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != 1 || l.Items[0].Title != `โครงการใหม่ตรงกับ "ครุภัณฑ์" และอีก 1 การค้นหา` {
		t.Fatalf("ann's bell: %+v", l.Items)
	}

	short := marshal(t, &projectsv1.ProjectMatched{EventId: "pk-2", CriteriaKeys: keys[:31],
		Project: &projectsv1.MatchedProject{ProjectId: "69444444444"}})
	if err := handle(ctx, "pk-2", short); !errors.Is(err, events.ErrPermanent) {
		t.Fatalf("keys of 31 bytes: %v, want permanent", err)
	}
	if err := matched(t, ports.NewEvents(a, nil))(ctx, "pk-3", ev); err == nil || errors.Is(err, events.ErrPermanent) {
		t.Fatalf("no lookup: %v, want a retry", err)
	}
}

// projects.v1.ImportMatched: an event of many users writes one
// notification a user naming their first projects (also when redelivered,
// or when the same import is told again in another event); an event of an
// older producer (one user, in user_id) too; a user id that is not one is
// left out, and an event of no valid user, or of no import, is permanent.
func TestImportMatchedEvent(t *testing.T) {
	ctx := context.Background()
	pool, a := newApp(t)
	c := events.Durable("notification-projects", events.On(ports.NewEvents(a, nil).ImportMatched))
	subject, err := events.SubjectOf(&projectsv1.ImportMatched{})
	if err != nil || c.Err() != nil {
		t.Fatal(err, c.Err())
	}
	handle := func(ev *projectsv1.ImportMatched) error { return c.Handle(ctx, subject, ev.EventId, marshal(t, ev)) }
	const cat = "33333333-3333-4333-8333-333333333333"
	named := []*projectsv1.MatchedProject{{ProjectId: "69000000001", ProjectName: "ถนนสายหนึ่ง"},
		{ProjectId: "69000000002", ProjectName: "ถนนสายสอง"}, {ProjectId: "69000000003", ProjectName: "สะพาน"}}
	many := &projectsv1.ImportMatched{EventId: "im-1", ImportId: 7, Projects: named, Users: []*projectsv1.ImportUser{
		{UserId: ann, ProjectIds: []string{"69000000001", "69000000002", "69000000003", "69000000004"}},
		{UserId: "not-a-user", ProjectIds: []string{"69000000001", "69000000002"}},
		{UserId: bob, ProjectIds: []string{"69000000003", "69000000001"}},
	}}
	again := &projectsv1.ImportMatched{EventId: "im-2", ImportId: 7, Projects: named[:1], Users: []*projectsv1.ImportUser{
		{UserId: ann, ProjectIds: []string{"69000000001", "69000000002"}}}}
	older := &projectsv1.ImportMatched{EventId: "im-3", ImportId: 8, UserId: cat, ProjectIds: []string{"69000000002", "69000000003"},
		Projects: named[1:]}
	for _, ev := range []*projectsv1.ImportMatched{many, many, again, older, older} {
		if err := handle(ev); err != nil {
			t.Fatal(err)
		}
	}
	for name, ev := range map[string]*projectsv1.ImportMatched{
		"no valid user": {EventId: "im-4", ImportId: 9, Users: []*projectsv1.ImportUser{{UserId: "x", ProjectIds: []string{"1"}}}},
		"no import":     {EventId: "im-5", Users: []*projectsv1.ImportUser{{UserId: ann, ProjectIds: []string{"1"}}}},
	} {
		if err := handle(ev); !errors.Is(err, events.ErrPermanent) {
			t.Errorf("%s: %v, want permanent", name, err)
		}
	}
	rows, err := pool.Query(ctx, `SELECT user_id::text, dedup_key, title, message, array_length(project_ids, 1) FROM notifications ORDER BY user_id, dedup_key`)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		user, key, title, message string
		ids                       int
	}
	var got []row
	var r row
	if _, err := pgx.ForEachRow(rows, []any{&r.user, &r.key, &r.title, &r.message, &r.ids}, func() error { got = append(got, r); return nil }); err != nil {
		t.Fatal(err)
	}
	want := []row{
		{ann, "import:7", domain.ImportMatchTitle(4), "ถนนสายหนึ่ง, ถนนสายสอง, สะพาน และอีก 1 โครงการ", 4},
		{bob, "import:7", domain.ImportMatchTitle(2), "สะพาน, ถนนสายหนึ่ง", 2},
		{cat, "import:8", domain.ImportMatchTitle(2), "ถนนสายสอง, สะพาน", 2},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("bell rows\n%v\nwant\n%v", got, want)
	}
}
