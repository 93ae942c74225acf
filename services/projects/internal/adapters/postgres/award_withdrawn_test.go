package postgres_test

import (
	"context"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	projectsv1 "bidradar/gen/projects/v1"
	"bidradar/pkg/outbox"
	"bidradar/services/projects/internal/adapters/eventproto"
	"bidradar/services/projects/internal/adapters/postgres"
	"bidradar/services/projects/internal/domain"
)

// TestAwardWithdrawnOnce: an import with a W0 publishes the award; a later
// import adding a cancelled winner announcement (W1) publishes its
// withdrawal once (a replay publishes nothing); a later W0 re-awards
// (docs/market.md#withdrawn-awards).
func TestAwardWithdrawnOnce(t *testing.T) {
	pool, _ := setup(t)
	ctx := context.Background()
	repo := postgres.New(pool, eventproto.Encoder{}, postgres.Options{})
	d := func(day int) time.Time { return time.Date(2025, 6, day, 0, 0, 0, 0, domain.Bangkok) }
	p := domain.Project{ID: "68059000001", Name: "จ้างก่อสร้างถนน คสล.", AgencyCode: "0701", AgencyName: "กรมชลประทาน",
		MethodCode: "16", WorkTypeCode: "02", ReferencePrice: domain.MoneyPtr(100_000_00), AgreedPrice: domain.MoneyPtr(90_000_00),
		WinnerName: "บริษัท ทดสอบ จำกัด", WinnerTaxID: "0105560000006", Source: "egp",
		Announcements: []domain.Announcement{{Type: domain.AnnInvitation, Date: d(1)}, {Type: domain.AnnWinner, Date: d(10)}}}
	count := func(m proto.Message) (n int, last *outbox.Event) {
		t.Helper()
		evs := storedOn(t, pool, m)
		if len(evs) > 0 {
			last = &evs[len(evs)-1]
		}
		return len(evs), last
	}
	now := time.Now()
	if _, err := repo.Upsert(ctx, 1, []domain.Project{p}, now); err != nil {
		t.Fatal(err)
	}
	if n, _ := count(&projectsv1.AwardRecorded{}); n != 1 {
		t.Fatalf("award.recorded %d, want 1", n)
	}
	w1 := p
	w1.Announcements = append(append([]domain.Announcement(nil), p.Announcements...), domain.Announcement{Type: domain.AnnWinnerCancelled, Date: d(12)})
	for run := int64(2); run <= 3; run++ { // the second is a replay
		if _, err := repo.Upsert(ctx, run, []domain.Project{w1}, now.Add(time.Duration(run)*time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	n, last := count(&projectsv1.AwardWithdrawn{})
	if n != 1 {
		t.Fatalf("award.withdrawn %d, want 1", n)
	}
	var ev projectsv1.AwardWithdrawn
	if err := proto.Unmarshal(last.Payload, &ev); err != nil {
		t.Fatal(err)
	}
	if ev.GetProjectId() != p.ID || ev.GetCancelledDate() != "2025-06-12" || ev.GetRunId() != "2" {
		t.Fatalf("withdrawn event %+v", &ev)
	}
	if n, _ := count(&projectsv1.AwardRecorded{}); n != 1 {
		t.Fatalf("the withdrawal published award.recorded: %d", n)
	}
	// A later W0 re-awards: award.recorded again, dated by the new W0.
	w0 := w1
	w0.Announcements = append(append([]domain.Announcement(nil), w1.Announcements...), domain.Announcement{Type: domain.AnnWinner, Date: d(20)})
	if _, err := repo.Upsert(ctx, 4, []domain.Project{w0}, now.Add(5*time.Hour)); err != nil {
		t.Fatal(err)
	}
	n, last = count(&projectsv1.AwardRecorded{})
	if n != 2 {
		t.Fatalf("re-award: award.recorded %d, want 2", n)
	}
	var rec projectsv1.AwardRecorded
	if err := proto.Unmarshal(last.Payload, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.GetAnnounceDate() != "2025-06-20" {
		t.Fatalf("re-award dated %q, want 2025-06-20", rec.GetAnnounceDate())
	}
	if n, _ := count(&projectsv1.AwardWithdrawn{}); n != 1 {
		t.Fatalf("re-award published a withdrawal: %d", n)
	}
	// A new project imported with W0 then W1 never published an award: no withdrawal.
	q := w1
	q.ID = "68059000002"
	if _, err := repo.Upsert(ctx, 5, []domain.Project{q}, now.Add(6*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if n, _ := count(&projectsv1.AwardWithdrawn{}); n != 1 {
		t.Fatalf("a new withdrawn project published a withdrawal: %d", n)
	}
	if n, _ := count(&projectsv1.AwardRecorded{}); n != 2 {
		t.Fatalf("a new withdrawn project published its award: %d", n)
	}
}
