package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"google.golang.org/protobuf/proto"

	notificationv1 "bidradar/gen/notification/v1"
	pkgevents "bidradar/pkg/events" // events is a test type of this package
	"bidradar/pkg/outbox"
	"bidradar/pkg/queue"
	"bidradar/pkg/testutil/pgtest"
	"bidradar/services/notification/internal/adapters/postgres"
	"bidradar/services/notification/internal/app"
	"bidradar/services/notification/internal/domain"
	"bidradar/services/notification/notificationsvc"
)

// subjectOf is the subject the event m is published on.
func subjectOf(t testing.TB, m proto.Message) string {
	t.Helper()
	s, err := pkgevents.SubjectOf(m)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

const (
	ann = "11111111-1111-4111-8111-111111111111"
	bob = "22222222-2222-4222-8222-222222222222"
)

func newApp(t *testing.T) (*app.App, *pgxpool.Pool) {
	t.Helper()
	pool, err := notificationsvc.Open(context.Background(), pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return app.New(postgres.New(pool), nil).WithChannels(app.Channels{Plans: allPlans{}}), pool
}

// allPlans: every user's tier includes e-mail and LINE.
type allPlans struct{}

func (allPlans) Channels(_ context.Context, users []string) (map[string]domain.PlanChannels, error) {
	out := map[string]domain.PlanChannels{}
	for _, u := range users {
		out[u] = domain.PlanChannels{TierLabel: "มืออาชีพ", Email: true, Line: true}
	}
	return out, nil
}

// deliver runs the deliveries due at now as the service's queue worker
// does, one at a time (the fakes here are not safe for concurrent use), and
// returns how many were sent.
func deliver(t *testing.T, pool *pgxpool.Pool, a *app.App, now func() time.Time) int {
	t.Helper()
	w, err := queue.New(pool, queue.Options{Concurrency: 1, Now: now, Log: quietLog}, a.Jobs()...)
	if err != nil {
		t.Fatal(err)
	}
	st, err := w.RunDue(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st.Done
}

var quietLog = slog.New(slog.NewTextHandler(io.Discard, nil))

func count(t *testing.T, pool *pgxpool.Pool, q string, args ...any) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), q, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// The same event delivered twice (or twenty times at once) writes its rows
// once; the same project matching the same search in two events alerts once.
func TestEventsWriteOnce(t *testing.T) {
	a, pool := newApp(t)
	ctx := context.Background()
	p := []domain.MatchedProject{{ID: "69222222222", Name: "สะพาน", Agency: "กรม", BudgetSatang: ptr(int64(450000000))}}
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if err := a.CriteriaMatched(ctx, "ev-1", ann, "c1", "ถนน", "", p, 0); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if err := a.CriteriaMatched(ctx, "ev-2", ann, "c1", "ถนน", "", p, 0); err != nil {
		t.Fatal(err)
	}
	if n := count(t, pool, `SELECT count(*) FROM notifications WHERE user_id = $1`, ann); n != 1 {
		t.Fatalf("%d rows, want 1", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM outbox WHERE subject = $1`, subjectOf(t, &notificationv1.NotificationCreated{UserId: ann})); n != 1 {
		t.Fatalf("%d created events, want 1", n)
	}
	if u, _ := a.UnreadCount(ctx, ann); u != 1 {
		t.Fatalf("unread %d", u)
	}
}

// Followers come from interest.changed, latest change wins whatever the
// arrival order; a new step alerts each follower once.
func TestFollowersAndSteps(t *testing.T) {
	a, pool := newApp(t)
	ctx := context.Background()
	t0 := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(a.InterestChanged(ctx, ann, "69222222222", true, false, false, t0.Add(2*time.Minute)))
	must(a.InterestChanged(ctx, ann, "69222222222", false, false, false, t0)) // late and older: ignored
	must(a.InterestChanged(ctx, bob, "69222222222", true, false, false, t0))
	must(a.InterestChanged(ctx, bob, "69222222222", true, false, true, t0.Add(time.Minute))) // archived: no longer follows
	for range 2 {
		must(a.AnnouncementAdded(ctx, "step-1", "69222222222", "สะพาน", "ประกาศผู้ชนะ", "2026-11-20"))
	}
	if n := count(t, pool, `SELECT count(*) FROM notifications WHERE user_id = $1 AND category = 'project_update'`, ann); n != 1 {
		t.Fatalf("ann: %d step alerts, want 1", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM notifications WHERE user_id = $1`, bob); n != 0 {
		t.Fatalf("bob (archived) got %d", n)
	}
	l, err := a.List(ctx, ann, domain.ListFilter{}, domain.Page{})
	must(err)
	if l.Items[0].Message != "ประกาศผู้ชนะ: สะพาน (20 พ.ย. 2569)" || l.Items[0].Link != "/project-details/69222222222" {
		t.Fatalf("step alert %+v", l.Items[0])
	}
}

// A deadline reminder reaches each follower once per project, kind and
// date, even when published again under another event id; non-followers
// and followers who turned deadline reminders off get none, whatever their
// step alerts (a switch of its own since migration 6).
func TestDeadlineRemindersOncePerFollower(t *testing.T) {
	a, pool := newApp(t)
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	carl := "33333333-3333-4333-8333-333333333333"
	t0 := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	must(a.InterestChanged(ctx, ann, "69222222222", true, false, false, t0))
	must(a.InterestChanged(ctx, carl, "69222222222", true, false, false, t0))
	off := domain.DefaultSettings
	off.NotifyDeadlines = false
	_, err := a.PutSettings(ctx, carl, off)
	must(err)
	if st, _ := a.Settings(ctx, carl); st.NotifyDeadlines || !st.NotifyAnnouncements {
		t.Fatalf("carl's settings read back %+v", st)
	}
	for _, ev := range []string{"d-1", "d-1", "d-1-republished"} {
		must(a.DeadlineApproaching(ctx, ev, "69222222222", "ก่อสร้างสะพาน", domain.DeadlineSubmission, "2026-11-26"))
	}
	must(a.DeadlineApproaching(ctx, "d-2", "69222222222", "ก่อสร้างสะพาน", domain.DeadlineHearing, "2026-11-27"))
	l, err := a.List(ctx, ann, domain.ListFilter{Category: domain.CategoryDeadline}, domain.Page{})
	must(err)
	if l.Total != 2 {
		t.Fatalf("ann: %d deadline reminders, want 2: %+v", l.Total, l.Items)
	}
	sub := l.Items[1]
	if sub.Title != "พรุ่งนี้เป็นวันสุดท้ายของการยื่นข้อเสนอ" || sub.Message != "ก่อสร้างสะพาน — วันสุดท้ายของการยื่นข้อเสนอ 26 พ.ย. 2569" ||
		sub.Priority != domain.PriorityHigh || sub.Link != "/project-details/69222222222" {
		t.Fatalf("reminder %+v", sub)
	}
	if n := count(t, pool, `SELECT count(*) FROM notifications WHERE user_id <> $1`, ann); n != 0 {
		t.Fatalf("%d reminders for others", n)
	}
}

// Settings: a user who turned search alerts off gets none; bad values are refused.
func TestSettingsGateAlerts(t *testing.T) {
	a, pool := newApp(t)
	ctx := context.Background()
	s := domain.DefaultSettings
	s.NotifySearchMatches = false
	if _, err := a.PutSettings(ctx, ann, s); err != nil {
		t.Fatal(err)
	}
	if err := a.CriteriaMatched(ctx, "ev-9", ann, "c1", "", "", []domain.MatchedProject{{ID: "69222222222", Name: "x"}}, 0); err != nil {
		t.Fatal(err)
	}
	if n := count(t, pool, `SELECT count(*) FROM notifications`); n != 0 {
		t.Fatalf("%d rows for a user who turned search alerts off", n)
	}
	for _, bad := range []domain.Settings{{EmailDigest: "weekly"}, {EmailDigest: ""}, {EmailDigest: "daily", LineUserID: "abc"}} {
		if _, err := a.PutSettings(ctx, ann, bad); err == nil {
			t.Fatalf("accepted %+v", bad)
		}
	}
}

func ptr[T any](v T) *T { return &v }

type fakeContacts struct{}

func (fakeContacts) Contact(_ context.Context, id string) (domain.Contact, error) {
	return domain.Contact{Email: id[:4] + "@example.com", LineID: "U" + strings.Repeat("0", 32)}, nil
}

type flakyMail struct {
	fails int
	sent  []string
}

func (m *flakyMail) Mail(_ context.Context, to, subject, _ string) error {
	if m.fails > 0 {
		m.fails--
		return errors.New("smtp down")
	}
	m.sent = append(m.sent, to+" "+subject)
	return nil
}

// An instant e-mail that fails is retried after the backoff and sent once;
// a LINE message without a LINE channel is given up, not retried forever.
func TestDeliveriesRetryThenSend(t *testing.T) {
	pool, err := notificationsvc.Open(context.Background(), pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	now := time.Date(2026, 11, 25, 3, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	mail := &flakyMail{fails: 1}
	a := app.New(postgres.New(pool), clock).WithChannels(app.Channels{Contacts: fakeContacts{}, Mail: mail, PublicURL: "https://app.example", Plans: allPlans{}})
	ctx := context.Background()
	s := domain.DefaultSettings
	s.EmailEnabled, s.EmailDigest, s.LineEnabled, s.LineUserID = true, "instant", true, "U"+strings.Repeat("1", 32)
	if _, err := a.PutSettings(ctx, ann, s); err != nil {
		t.Fatal(err)
	}
	if err := a.CriteriaMatched(ctx, "ev-m", ann, "c1", "ถนน", "", []domain.MatchedProject{{ID: "69222222222", Name: "ถนนลาดยาง"}}, 0); err != nil {
		t.Fatal(err)
	}
	if n := deliver(t, pool, a, clock); n != 0 || len(mail.sent) != 0 {
		t.Fatalf("first run: %d %v", n, mail.sent)
	}
	if n := deliver(t, pool, a, clock); n != 0 {
		t.Fatal("retried before its backoff")
	}
	now = now.Add(domain.DeliveryRetries[0] + time.Second)
	if n := deliver(t, pool, a, clock); n != 1 || len(mail.sent) != 1 || !strings.Contains(mail.sent[0], "ถนน") {
		t.Fatalf("retry: %d %v", n, mail.sent)
	}
	var sent, failed int
	_ = pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE done_at IS NOT NULL), count(*) FILTER (WHERE failed_at IS NOT NULL)
		FROM queue_jobs WHERE kind = 'notification.delivery'`).Scan(&sent, &failed)
	if sent != 1 || failed != 1 { // e-mail sent; LINE given up (no LINE channel configured)
		t.Fatalf("sent %d failed %d", sent, failed)
	}
	now = now.Add(24 * time.Hour)
	if n := deliver(t, pool, a, clock); n != 0 || len(mail.sent) != 1 {
		t.Fatal("sent twice")
	}
}

// The daily digest: one e-mail per user and day naming every alert, never two.
func TestDailyDigestOncePerDay(t *testing.T) {
	pool, err := notificationsvc.Open(context.Background(), pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	now := time.Date(2026, 11, 24, 5, 0, 0, 0, time.UTC) // 12:00 Bangkok
	mail := &flakyMail{}
	a := app.New(postgres.New(pool), func() time.Time { return now }).WithChannels(app.Channels{Contacts: fakeContacts{}, Mail: mail, Plans: allPlans{}})
	ctx := context.Background()
	s := domain.DefaultSettings
	s.EmailEnabled, s.EmailDigest = true, "daily"
	if _, err := a.PutSettings(ctx, ann, s); err != nil {
		t.Fatal(err)
	}
	for i, id := range []string{"69222222221", "69222222222", "69222222223"} {
		if err := a.CriteriaMatched(ctx, "ev-"+id, ann, "c1", "ถนน", "", []domain.MatchedProject{{ID: id, Name: "ถนนสาย " + string(rune('ก'+i))}}, 0); err != nil {
			t.Fatal(err)
		}
	}
	now = time.Date(2026, 11, 25, 0, 30, 0, 0, time.UTC) // 07:30 Bangkok the next day
	clock := func() time.Time { return now }
	mail.fails = 1 // the mail server refuses the first try: the digest is retried, not lost
	for range 3 {
		if _, err := a.Digest(ctx); err != nil {
			t.Fatal(err)
		}
		deliver(t, pool, a, clock)
	}
	if len(mail.sent) != 0 {
		t.Fatalf("digests sent through a failing server %v", mail.sent)
	}
	now = now.Add(domain.DeliveryRetries[0] + time.Second)
	if _, err := a.Digest(ctx); err != nil {
		t.Fatal(err)
	}
	deliver(t, pool, a, clock)
	deliver(t, pool, a, clock)
	if len(mail.sent) != 1 || !strings.Contains(mail.sent[0], "3 รายการ") {
		t.Fatalf("digests %v", mail.sent)
	}
	var n int
	_ = pool.QueryRow(ctx, `SELECT count(*) FROM deliveries`).Scan(&n)
	if n != 0 {
		t.Fatalf("a daily-digest user got %d instant deliveries", n)
	}
}

type textMail struct{ sent map[string]string }

func (m *textMail) Mail(_ context.Context, to, _, text string) error {
	m.sent[to] += text
	return nil
}

// A follower with is_fill20 finds in the daily digest the steps of the
// last 20 days of the projects so followed (by announcement date: an old
// step ingested late is not a change); other followers do not.
func TestDigestListsFill20Steps(t *testing.T) {
	pool, err := notificationsvc.Open(context.Background(), pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	now := time.Date(2026, 11, 24, 5, 0, 0, 0, time.UTC) // 12:00 Bangkok
	mail := &textMail{sent: map[string]string{}}
	a := app.New(postgres.New(pool), func() time.Time { return now }).WithChannels(app.Channels{Contacts: fakeContacts{}, Mail: mail, Plans: allPlans{}})
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	s := domain.DefaultSettings
	s.EmailEnabled, s.EmailDigest = true, "daily"
	for _, u := range []string{ann, bob} {
		_, err := a.PutSettings(ctx, u, s)
		must(err)
	}
	must(a.InterestChanged(ctx, ann, "69000000001", true, true, false, now.Add(-48*time.Hour)))
	must(a.InterestChanged(ctx, ann, "69000000002", true, false, false, now.Add(-48*time.Hour)))
	must(a.InterestChanged(ctx, bob, "69000000001", true, false, false, now.Add(-48*time.Hour)))
	must(a.AnnouncementAdded(ctx, "s1", "69000000001", "ก่อสร้างสะพานคอนกรีต", "ประกาศราคากลาง", "2026-11-14"))
	must(a.AnnouncementAdded(ctx, "s1", "69000000001", "ก่อสร้างสะพานคอนกรีต", "ประกาศราคากลาง", "2026-11-14")) // redelivered
	must(a.AnnouncementAdded(ctx, "s2", "69000000001", "ก่อสร้างสะพานคอนกรีต", "แผนการจัดซื้อจัดจ้าง", "2026-10-20"))
	must(a.AnnouncementAdded(ctx, "s3", "69000000001", "ก่อสร้างสะพานคอนกรีต", "ประกาศเชิญชวน", "2026-11-24"))
	must(a.AnnouncementAdded(ctx, "s4", "69000000002", "ซื้อรถบรรทุกน้ำ", "ประกาศเชิญชวน", "2026-11-23"))
	must(a.AnnouncementAdded(ctx, "s5", "69000000003", "โครงการที่ไม่มีใครติดตาม", "ประกาศเชิญชวน", "2026-11-23"))

	now = time.Date(2026, 11, 25, 0, 30, 0, 0, time.UTC) // 07:30 Bangkok the next day
	sent, err := a.Digest(ctx)
	must(err)
	if sent != 2 {
		t.Fatalf("%d digests", sent)
	}
	if n := deliver(t, pool, a, func() time.Time { return now }); n != 2 {
		t.Fatalf("%d digests sent", n)
	}
	const header = "ความเคลื่อนไหวของโครงการที่ติดตาม (20 วันล่าสุด)"
	annText := mail.sent[ann[:4]+"@example.com"]
	_, section, ok := strings.Cut(annText, header)
	if !ok {
		t.Fatalf("ann's digest has no fill20 section:\n%s", annText)
	}
	for _, want := range []string{"ก่อสร้างสะพานคอนกรีต (69000000001)", "/project-details/69000000001", "14 พ.ย. 2569: ประกาศราคากลาง", "24 พ.ย. 2569: ประกาศเชิญชวน"} {
		if !strings.Contains(section, want) {
			t.Errorf("fill20 section lacks %q:\n%s", want, section)
		}
	}
	for _, not := range []string{"แผนการจัดซื้อจัดจ้าง", "ซื้อรถบรรทุกน้ำ", "โครงการที่ไม่มีใครติดตาม"} {
		if strings.Contains(section, not) {
			t.Errorf("fill20 section names %q:\n%s", not, section)
		}
	}
	if strings.Count(section, "ประกาศราคากลาง") != 1 {
		t.Errorf("a redelivered step listed twice:\n%s", section)
	}
	if bobText := mail.sent[bob[:4]+"@example.com"]; bobText == "" || strings.Contains(bobText, header) {
		t.Fatalf("bob (following without fill20):\n%s", bobText)
	}
}

// createdEvents decodes the NotificationCreated events in the outbox, by user.
func createdEvents(t *testing.T, pool *pgxpool.Pool) map[string][]*notificationv1.NotificationCreated {
	t.Helper()
	evs, err := outbox.Stored(context.Background(), pool)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]*notificationv1.NotificationCreated{}
	created, err := pkgevents.TypeOf(&notificationv1.NotificationCreated{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		if !created.Matches(e.Subject) {
			continue
		}
		var m notificationv1.NotificationCreated
		if err := proto.Unmarshal(e.Payload, &m); err != nil {
			t.Fatal(err)
		}
		if e.Subject != subjectOf(t, &m) || e.ID != m.GetEventId() {
			t.Fatalf("event %s on %s for %s", e.ID, e.Subject, m.GetUserId())
		}
		out[m.GetUserId()] = append(out[m.GetUserId()], &m)
	}
	return out
}

// One project.matched event tells each user once of the project: a user
// with two matching searches gets one alert naming the other; the event
// delivered again, concurrently, or the project told again in another
// event (a split one, a repeat) writes nothing more; a user who turned
// search alerts off gets none; a user with instant e-mail and LINE has both
// deliveries queued; each new notification has its created event with the
// unread count counted from the rows.
func TestProjectMatchedOncePerUserAndProject(t *testing.T) {
	a, pool := newApp(t)
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	carl := "33333333-3333-4333-8333-333333333333"
	dave := "44444444-4444-4444-8444-444444444444"
	off := domain.DefaultSettings
	off.NotifySearchMatches = false
	_, err := a.PutSettings(ctx, carl, off)
	must(err)
	chans := domain.DefaultSettings
	chans.EmailEnabled, chans.EmailDigest, chans.LineEnabled = true, "instant", true
	_, err = a.PutSettings(ctx, dave, chans)
	must(err)
	// ann has an alert already: the count of the new one counts it.
	must(a.CriteriaMatched(ctx, "old-1", ann, "c0", "เก่า", "", []domain.MatchedProject{{ID: "69000000009", Name: "เก่า"}}, 0))

	p := domain.MatchedProject{ID: "69222222222", Name: "ก่อสร้างสะพาน", Agency: "กรมทางหลวงชนบท", BudgetSatang: ptr(int64(450000000))}
	matches := []domain.Match{
		{UserID: ann, CriteriaID: "c1", CriteriaName: "ถนน"},
		{UserID: bob, CriteriaID: "c2", CriteriaName: " สะพาน "},
		{UserID: carl, CriteriaID: "c3", CriteriaName: "ปิด"},
		{UserID: ann, CriteriaID: "c4", CriteriaName: "สะพาน"},
		{UserID: dave, CriteriaID: "c5", CriteriaName: ""},
		{UserID: ann, CriteriaID: "c4", CriteriaName: "สะพาน"}, // named twice: counted once
	}
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			if err := a.ProjectMatched(ctx, "pm-1", p, matches); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	must(a.ProjectMatched(ctx, "pm-1", p, matches))
	must(a.ProjectMatched(ctx, "pm-2", p, matches[3:])) // the same project in another event

	want := map[string]string{
		ann:  `โครงการใหม่ตรงกับ "ถนน" และอีก 1 การค้นหา`,
		bob:  `โครงการใหม่ตรงกับ "สะพาน"`,
		dave: `โครงการใหม่ตรงกับ "การค้นหาที่บันทึกไว้"`,
	}
	evs := createdEvents(t, pool)
	for u, title := range want {
		l, err := a.List(ctx, u, domain.ListFilter{}, domain.Page{})
		must(err)
		var got []domain.Notification
		for _, n := range l.Items {
			if n.ProjectID == p.ID {
				got = append(got, n)
			}
		}
		if len(got) != 1 {
			t.Fatalf("%s: %d alerts of the project, want 1: %+v", u, len(got), l.Items)
		}
		n := got[0]
		if n.Title != title || n.Message != "ก่อสร้างสะพาน — กรมทางหลวงชนบท งบประมาณ 4,500,000.00 บาท" ||
			n.Category != domain.CategorySearchMatch || n.Link != "/project-details/69222222222" || n.IsRead {
			t.Errorf("%s: %+v", u, n)
		}
		var mine []*notificationv1.NotificationCreated
		for _, e := range evs[u] {
			if e.GetNotification().GetProjectId() == p.ID {
				mine = append(mine, e)
			}
		}
		if len(mine) != 1 || mine[0].GetNotification().GetId() != n.ID || mine[0].GetUnreadCount() != l.Unread {
			t.Errorf("%s: created events %v, unread %d", u, mine, l.Unread)
		}
	}
	if u, _ := a.UnreadCount(ctx, ann); u != 2 {
		t.Errorf("ann unread %d, want 2", u)
	}
	if n := count(t, pool, `SELECT count(*) FROM notifications WHERE user_id = $1`, carl); n != 0 || len(evs[carl]) != 0 {
		t.Errorf("carl (search alerts off) got %d", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM notifications WHERE project_id = $1`, p.ID); n != 3 {
		t.Errorf("%d rows of the project, want 3", n)
	}
	var chs string
	must(pool.QueryRow(ctx, `SELECT string_agg(d.channel, ',' ORDER BY d.channel) FROM deliveries d
		JOIN notifications n ON n.id = d.notification_id WHERE d.user_id = $1 AND n.project_id = $2`, dave, p.ID).Scan(&chs))
	if chs != "email,line" {
		t.Errorf("dave's deliveries %q, want email,line", chs)
	}
	if n := count(t, pool, `SELECT count(*) FROM deliveries WHERE user_id <> $1`, dave); n != 0 {
		t.Errorf("%d deliveries for bell-only users", n)
	}
}

// Create writes many users' notifications at once: writers whose user
// sets overlap in any order do not deadlock, every draft is written once,
// and the unread count of each created event is the user's count after
// its commit (the last event of a user carries the final count).
func TestCreateManyUsersConcurrently(t *testing.T) {
	a, pool := newApp(t)
	ctx := context.Background()
	users := make([]string, 40)
	for i := range users {
		users[i] = fmt.Sprintf("%08x-0000-4000-8000-%012x", i+1, i+1)
	}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for k := range 5 {
				ms := make([]domain.Match, 0, len(users))
				for i := range users { // each writer its own order: rotated, every other one reversed
					j := (i + 5*w + k) % len(users)
					if w%2 == 1 {
						j = len(users) - 1 - j
					}
					ms = append(ms, domain.Match{UserID: users[j], CriteriaID: "c", CriteriaName: "ถนน"})
				}
				p := domain.MatchedProject{ID: fmt.Sprintf("6900000%02d%02d", w, k), Name: "โครงการ"}
				if err := a.ProjectMatched(ctx, fmt.Sprintf("ev-%d-%d", w, k), p, ms); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	evs := createdEvents(t, pool)
	for _, u := range users {
		if n := count(t, pool, `SELECT count(*) FROM notifications WHERE user_id = $1`, u); n != 40 {
			t.Fatalf("%s: %d rows, want 40", u, n)
		}
		if got := len(evs[u]); got != 40 {
			t.Fatalf("%s: %d created events, want 40", u, got)
		}
		seen := map[int64]bool{}
		for _, e := range evs[u] {
			seen[e.GetUnreadCount()] = true
		}
		for c := int64(1); c <= 40; c++ {
			if !seen[c] {
				t.Fatalf("%s: no event carried unread count %d", u, c)
			}
		}
	}
}

// A batch of one user's drafts is written in its order (the bell lists the
// last first), whatever the spelling of the user id; each has its event.
func TestCreateKeepsDraftOrder(t *testing.T) {
	a, pool := newApp(t)
	ctx := context.Background()
	ns, err := a.CreateTest(ctx, strings.ToUpper(ann), 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(ns) != 3 || ns[0].Title != "การแจ้งเตือนทดสอบ #1" || ns[2].Title != "การแจ้งเตือนทดสอบ #3" || ns[0].UserID != ann {
		t.Fatalf("created %+v", ns)
	}
	l, err := a.List(ctx, ann, domain.ListFilter{}, domain.Page{})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != 3 || l.Items[0].Title != "การแจ้งเตือนทดสอบ #3" || l.Items[2].Title != "การแจ้งเตือนทดสอบ #1" || l.Unread != 3 {
		t.Fatalf("bell %+v", l)
	}
	evs := createdEvents(t, pool)[ann]
	if len(evs) != 3 || evs[0].GetNotification().GetId() != ns[0].ID || evs[2].GetUnreadCount() != 3 {
		t.Fatalf("events %v", evs)
	}
}
