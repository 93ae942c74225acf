package ports_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"connectrpc.com/connect"

	projectsv1 "bidradar/gen/projects/v1"
	"bidradar/gen/projects/v1/projectsv1connect"
	"bidradar/pkg/server"
	"bidradar/services/notification/internal/adapters/searchowners"
	"bidradar/services/notification/internal/ports"
)

// ownersServer is the projects service's GetSearchOwners over the network
// (h2c, as in production), answering from memory: it leaves out the
// projects service's own query, so the lookups here are a lower bound.
type ownersServer struct {
	projectsv1connect.UnimplementedProjectsServiceHandler
	owners  map[[16]byte]*projectsv1.SearchOwner
	version atomic.Int64 // of the saved searches, sent with every answer
}

func (s *ownersServer) GetSearchOwners(_ context.Context, req *connect.Request[projectsv1.GetSearchOwnersRequest]) (*connect.Response[projectsv1.GetSearchOwnersResponse], error) {
	res := &projectsv1.GetSearchOwnersResponse{CriteriaVersion: s.version.Load()}
	ks := req.Msg.CriteriaKeys
	for i := 0; i+16 <= len(ks); i += 16 {
		if o, ok := s.owners[[16]byte(ks[i:i+16])]; ok {
			res.Searches = append(res.Searches, o)
		}
	}
	return connect.NewResponse(res), nil
}

// BenchmarkProjectMatchedEvents measures project.matched events through the
// consumer's handler (decoding, the use case, the store), one at a time:
// each names 160 searches of 160 users drawn from 100 000 searches of
// 25 000 users, into a database of its own. "keys" names the searches by
// key, their owners and names looked up through the searchowners client in
// a fake projects service (first from the service, then from the client's
// cache as the searches recur); "keys-changing" does the same while some
// search changes before every event (the worst case of the version check:
// every event's searches are asked again); "users" carries the same owners
// and names in the event, as producers wrote them before.
//
//	go test ./internal/ports -run '^$' -bench ProjectMatchedEvents -benchtime 2000x
func BenchmarkProjectMatchedEvents(b *testing.B) {
	const searches, population, perEvent = 100_000, 25_000, 160
	srv := &ownersServer{owners: map[[16]byte]*projectsv1.SearchOwner{}}
	keys := make([][16]byte, searches)
	for i := range keys {
		keys[i] = [16]byte{byte(i), byte(i >> 8), byte(i >> 16), 6: 0x40, 8: 0x80, 15: 1}
		user := i % population
		srv.owners[keys[i]] = &projectsv1.SearchOwner{CriteriaKey: keys[i][:],
			UserId: fmt.Sprintf("%08x-%04x-4000-8000-%012x", user, user%0x10000, user), Name: fmt.Sprintf("ถนนคอนกรีต %d จังหวัด", i%3+1)}
	}
	mux := http.NewServeMux()
	mux.Handle(projectsv1connect.NewProjectsServiceHandler(srv))
	hs := httptest.NewUnstartedServer(mux)
	hs.Config.Protocols = new(http.Protocols)
	hs.Config.Protocols.SetHTTP1(true)
	hs.Config.Protocols.SetUnencryptedHTTP2(true)
	hs.Start()
	defer hs.Close()

	for _, form := range []string{"keys", "keys-changing", "users"} {
		b.Run(form, func(b *testing.B) {
			ctx := context.Background()
			_, a := newApp(b)
			handle := matched(b, ports.NewEvents(a, searchowners.New(server.H2CClient(), strings.TrimPrefix(hs.URL, "http://"), 0)))
			rng := rand.New(rand.NewPCG(3, 5))
			ev, written := 0, 0
			for b.Loop() {
				b.StopTimer()
				m := &projectsv1.ProjectMatched{EventId: fmt.Sprintf("pm-%d", ev),
					Project: &projectsv1.MatchedProject{ProjectId: fmt.Sprintf("69%09d", ev), ProjectName: "จ้างก่อสร้างถนนคอนกรีตเสริมเหล็ก", AgencyName: "อบต.บ้านนา"}}
				seen := map[string]bool{}
				for len(seen) < perEvent {
					k := keys[rng.IntN(searches)]
					o := srv.owners[k]
					if seen[o.UserId] {
						continue
					}
					seen[o.UserId] = true
					if form != "users" {
						m.CriteriaKeys = append(m.CriteriaKeys, k[:]...)
					} else {
						m.Users = append(m.Users, &projectsv1.UserMatches{UserId: o.UserId, CriteriaIds: k[:], CriteriaNames: []string{o.Name}})
					}
				}
				if form == "keys-changing" {
					m.CriteriaVersion = srv.version.Add(1)
				}
				data := marshal(b, m)
				b.StartTimer()
				if err := handle(ctx, m.EventId, data); err != nil {
					b.Fatal(err)
				}
				ev++
				written += perEvent
			}
			b.ReportMetric(float64(written)/b.Elapsed().Seconds(), "notifications/s")
		})
	}
}
