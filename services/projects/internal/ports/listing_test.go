package ports_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"

	interestsv1 "bidradar/gen/interests/v1"
	"bidradar/gen/interests/v1/interestsv1connect"
	projectsv1 "bidradar/gen/projects/v1"
	"bidradar/pkg/server"
	"bidradar/services/projects/internal/adapters/eventproto"
	"bidradar/services/projects/internal/adapters/interestsclient"
	"bidradar/services/projects/internal/adapters/postgres"
	"bidradar/services/projects/internal/demo"
	"bidradar/services/projects/internal/domain"
)

// interests is a fake interests service answering GetFlags from its
// records by user, as the real one does (only the projects asked for
// that the user has a record on).
type interests struct {
	interestsv1connect.UnimplementedInterestsServiceHandler
	mu      sync.Mutex
	records map[string][]*interestsv1.UserInterest
}

func (f *interests) GetFlags(_ context.Context, req *connect.Request[interestsv1.GetFlagsRequest]) (*connect.Response[interestsv1.GetFlagsResponse], error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := &interestsv1.GetFlagsResponse{}
	for _, r := range f.records[req.Msg.UserId] {
		for _, id := range req.Msg.ProjectIds {
			if r.IdProject == id {
				out.Interests = append(out.Interests, r)
			}
		}
	}
	return connect.NewResponse(out), nil
}

func ptr[T any](v T) *T { return &v }

// A signed-in listing row carries the user's bid as the interests record
// has it (baht exact to the satang, the satang, the reduction in percent),
// read through the internal GetFlags; a row without a bid, another user's
// rows and a visitor's rows carry none.
func TestListingRowsCarryTheBid(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	g := demo.New(3, *e.clock)
	var projects []domain.Project
	for i := range 3 {
		projects = append(projects, g.Project(i))
	}
	repo := postgres.New(e.pool, eventproto.Encoder{}, postgres.Options{})
	if _, err := repo.Upsert(ctx, 0, projects, *e.clock); err != nil {
		t.Fatal(err)
	}
	p1, p2, p3 := projects[0].ID, projects[1].ID, projects[2].ID
	fake := &interests{records: map[string][]*interestsv1.UserInterest{"ann": {
		// 1,234,567.89 baht: not exact as a float32, exact to the satang as a double.
		{IdProject: p1, Is_InterestToBid: true, BidPrice: ptr(1234567.89), BidPriceSatang: ptr(int64(123456789)), ReductionPercent: ptr(3.25)},
		// A percent without a price (a project with neither reference price nor budget).
		{IdProject: p2, Is_InterestToBid: true, ReductionPercent: ptr(7.5)},
		{IdProject: p3, IsUserLike: true},
	}}}
	srv := httptest.NewUnstartedServer(http.NewServeMux())
	srv.Config.Handler.(*http.ServeMux).Handle(interestsv1connect.NewInterestsServiceHandler(fake))
	srv.Config.Protocols = new(http.Protocols)
	srv.Config.Protocols.SetHTTP1(true)
	srv.Config.Protocols.SetUnencryptedHTTP2(true)
	srv.Start()
	t.Cleanup(srv.Close)
	e.app.SetInterests(interestsclient.New(server.H2CClient(), strings.TrimPrefix(srv.URL, "http://"), 2*time.Second))

	rows := func(ctx context.Context, req *connect.Request[projectsv1.ListProjectsRequest]) map[string]*projectsv1.ProjectSummary {
		t.Helper()
		res, err := e.h.ListProjects(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]*projectsv1.ProjectSummary{}
		for _, r := range res.Msg.Data {
			out[r.ProjectId] = r
		}
		if len(out) != 3 {
			t.Fatalf("%d rows, want the 3 projects", len(out))
		}
		return out
	}
	ann := rows(as("ann", &projectsv1.ListProjectsRequest{PerPage: 10}))
	if r := ann[p1]; r.BidPrice == nil || *r.BidPrice != 1234567.89 || r.BidPriceSatang == nil || *r.BidPriceSatang != 123456789 ||
		r.ReductionPercent == nil || *r.ReductionPercent != 3.25 || !r.Is_InterestToBid {
		t.Fatalf("ann's bid row: bidPrice %v satang %v reductionPercent %v", r.BidPrice, r.BidPriceSatang, r.ReductionPercent)
	}
	if r := ann[p2]; r.BidPrice != nil || r.BidPriceSatang != nil || r.ReductionPercent == nil || *r.ReductionPercent != 7.5 {
		t.Fatalf("ann's percent-only row: bidPrice %v satang %v reductionPercent %v", r.BidPrice, r.BidPriceSatang, r.ReductionPercent)
	}
	if r := ann[p3]; r.BidPrice != nil || r.BidPriceSatang != nil || r.ReductionPercent != nil || !r.IsUserLike {
		t.Fatalf("ann's row without a bid: %v", r)
	}
	visitor := rows(context.Background(), connect.NewRequest(&projectsv1.ListProjectsRequest{PerPage: 10}))
	bob := rows(as("bob", &projectsv1.ListProjectsRequest{PerPage: 10}))
	for _, who := range []map[string]*projectsv1.ProjectSummary{visitor, bob} {
		for id, r := range who {
			if r.BidPrice != nil || r.BidPriceSatang != nil || r.ReductionPercent != nil {
				t.Fatalf("%s shows ann's bid to someone else: %v", id, r)
			}
		}
	}
}
