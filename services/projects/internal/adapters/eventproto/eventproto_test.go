package eventproto_test

import (
	"slices"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	projectsv1 "bidradar/gen/projects/v1"
	"bidradar/services/projects/internal/adapters/eventproto"
	"bidradar/services/projects/internal/domain"
)

// A project.matched event carries its searches as 16-byte keys end to end,
// in the order matched, and nothing else of them.
func TestProjectMatchedEncoding(t *testing.T) {
	ids := []string{"0a1b2c3d-4e5f-4a6b-8c7d-8e9fa0b1c2d3", "A0000000-0000-4000-8000-000000000001",
		"a0000000-0000-4000-8000-000000000002", "a0000000-0000-4000-8000-000000000003"}
	var keys []domain.SearchKey
	key := func(i int) []byte {
		k, ok := domain.ParseSearchKey(ids[i])
		if !ok {
			t.Fatal(ids[i])
		}
		return k[:]
	}
	for i := range ids {
		keys = append(keys, domain.SearchKey(key(i)))
	}
	budget := domain.Money(150_000_000)
	at := time.Date(2026, 11, 25, 3, 4, 5, 6, time.UTC)
	e := domain.Event{ID: "ev-1", Kind: domain.EventProjectMatched, At: at, Matched: &domain.ProjectMatches{
		Project: &domain.Project{ID: "69111111111", Name: "ก่อสร้างถนนคอนกรีต", AgencyName: "อบต.หนองบัว", Budget: &budget},
		Keys:    keys,
		AsOf:    9,
	}}
	m, err := eventproto.Encoder{}.Encode(e)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := m.(*projectsv1.ProjectMatched)
	if !ok {
		t.Fatalf("encoded a %T", m)
	}
	satang := int64(budget)
	want := &projectsv1.ProjectMatched{EventId: "ev-1", OccurredAt: timestamppb.New(at),
		Project:      &projectsv1.MatchedProject{ProjectId: "69111111111", ProjectName: "ก่อสร้างถนนคอนกรีต", AgencyName: "อบต.หนองบัว", BudgetSatang: &satang},
		CriteriaKeys: slices.Concat(key(0), key(1), key(2), key(3)), CriteriaVersion: 9}
	if !proto.Equal(got, want) {
		t.Fatalf("encoded %v\nwant    %v", got, want)
	}
}
