package ports_test

import (
	"context"
	"errors"
	"testing"

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

func marshal(t *testing.T, m proto.Message) []byte {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// projects.v1.project.matched: a good event alerts each user once (also
// when redelivered); a payload that does not decode, names no project or
// a user that is not a user id is permanent and writes nothing.
func TestProjectMatchedEvent(t *testing.T) {
	ctx := context.Background()
	pool, err := notificationsvc.Open(ctx, pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	a := app.New(postgres.New(pool), nil)
	h := ports.NewEvents(a)
	budget := int64(120000)
	good := &projectsv1.ProjectMatched{
		EventId: "pm-1",
		Project: &projectsv1.MatchedProject{ProjectId: "69222222222", ProjectName: "จัดซื้อครุภัณฑ์", AgencyName: "อบต.นา", BudgetSatang: &budget},
		Matches: []*projectsv1.SearchMatch{
			{UserId: ann, CriteriaId: "c1", CriteriaName: "ครุภัณฑ์"},
			{UserId: ann, CriteriaId: "c2", CriteriaName: "จัดซื้อ"},
			{UserId: bob, CriteriaId: "c3", CriteriaName: "อบต."},
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
	}
	for name, data := range bad {
		if err := h.Projects(ctx, ports.SubjectProjectMatched, "bad-"+name, data); !errors.Is(err, events.ErrPermanent) {
			t.Errorf("%s: %v, want permanent", name, err)
		}
	}
	for range 2 {
		if err := h.Projects(ctx, ports.SubjectProjectMatched, good.EventId, marshal(t, good)); err != nil {
			t.Fatal(err)
		}
	}
	var rows int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM notifications`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows != 2 {
		t.Fatalf("%d notifications, want 2 (one per user)", rows)
	}
	l, err := a.List(ctx, ann, domain.ListFilter{}, domain.Page{})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != 1 || l.Items[0].Title != `โครงการใหม่ตรงกับ "ครุภัณฑ์" และอีก 1 การค้นหา` ||
		l.Items[0].Message != "จัดซื้อครุภัณฑ์ — อบต.นา งบประมาณ 1,200.00 บาท" {
		t.Fatalf("ann's bell: %+v", l.Items)
	}
}
