package postgres_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"bidradar/pkg/apperr"
	"bidradar/pkg/testutil/pgtest"
	"bidradar/services/notification/internal/adapters/postgres"
	"bidradar/services/notification/internal/app"
	"bidradar/services/notification/internal/domain"
	"bidradar/services/notification/notificationsvc"
)

// tierPlans answers each user's channels by tier, as the subscription
// service's tier table does (free: the bell only; starter: e-mail; pro:
// e-mail and LINE); down makes it unreachable.
type tierPlans struct {
	mu   sync.Mutex
	tier map[string]string
	down bool
}

func (p *tierPlans) set(user, tier string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.tier[user] = tier
}

func (p *tierPlans) Channels(_ context.Context, users []string) (map[string]domain.PlanChannels, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.down {
		return nil, domain.ErrPlansUnavailable
	}
	out := map[string]domain.PlanChannels{}
	for _, u := range users {
		switch p.tier[u] {
		case "starter":
			out[u] = domain.PlanChannels{TierLabel: "เริ่มต้น", Email: true}
		case "pro":
			out[u] = domain.PlanChannels{TierLabel: "มืออาชีพ", Email: true, Line: true}
		default:
			out[u] = domain.PlanChannels{TierLabel: "ฟรี"}
		}
	}
	return out, nil
}

type countingLine struct {
	mu   sync.Mutex
	sent int
}

func (l *countingLine) Push(context.Context, string, string, string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sent++
	return nil
}

// TestChannelsFollowThePlan: a channel the user's tier does not include
// cannot be turned on (403 upgrade_required); one a lapsed tier turned on
// stays set but delivers nothing (given up at once, the digest skipped)
// until the tier includes it again; while the subscription service is
// unreachable nothing is turned on and deliveries wait.
func TestChannelsFollowThePlan(t *testing.T) {
	pool, err := notificationsvc.Open(context.Background(), pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	now := time.Date(2026, 11, 24, 5, 0, 0, 0, time.UTC) // 12:00 Bangkok
	plans := &tierPlans{tier: map[string]string{}}
	mail, line := &flakyMail{}, &countingLine{}
	clock := func() time.Time { return now }
	a := app.New(postgres.New(pool), clock).WithChannels(app.Channels{
		Contacts: fakeContacts{}, Mail: mail, Line: line, Plans: plans, PublicURL: "https://app.example"})
	ctx := context.Background()
	lineID := "U" + strings.Repeat("3", 32)
	email, both := domain.DefaultSettings, domain.DefaultSettings
	email.EmailEnabled, email.EmailDigest = true, "instant"
	both.EmailEnabled, both.EmailDigest, both.LineEnabled, both.LineUserID = true, "instant", true, lineID
	upgrade := func(err error) bool {
		var ae *apperr.Error
		return errors.As(err, &ae) && ae.Slug == "upgrade_required" && ae.Kind == apperr.PermissionDenied
	}

	// Free: the bell only.
	if _, err := a.PutSettings(ctx, ann, email); !upgrade(err) || !strings.Contains(err.Error(), "ฟรี") {
		t.Fatalf("free turned e-mail on: %v", err)
	}
	daily := domain.DefaultSettings
	daily.EmailEnabled = true // the daily digest is e-mail too
	if _, err := a.PutSettings(ctx, ann, daily); !upgrade(err) {
		t.Fatalf("free turned the daily digest on: %v", err)
	}
	line1 := domain.DefaultSettings
	line1.LineEnabled = true
	if _, err := a.PutSettings(ctx, ann, line1); !upgrade(err) {
		t.Fatalf("free turned LINE on: %v", err)
	}
	quiet := domain.DefaultSettings
	quiet.NotifyPayments = false
	if _, err := a.PutSettings(ctx, ann, quiet); err != nil {
		t.Fatalf("free changing the bell's settings: %v", err)
	}
	// Starter: e-mail, not LINE.
	plans.set(ann, "starter")
	if _, err := a.PutSettings(ctx, ann, both); !upgrade(err) || !strings.Contains(err.Error(), "LINE") {
		t.Fatalf("starter turned LINE on: %v", err)
	}
	if _, err := a.PutSettings(ctx, ann, email); err != nil {
		t.Fatalf("starter e-mail: %v", err)
	}
	// Pro: both.
	plans.set(bob, "pro")
	if _, err := a.PutSettings(ctx, bob, both); err != nil {
		t.Fatalf("pro e-mail and LINE: %v", err)
	}

	alert := func(id string) {
		t.Helper()
		for _, u := range []string{ann, bob} {
			if err := a.CriteriaMatched(ctx, "ev-"+id+u, u, "c1", "ถนน", "", []domain.MatchedProject{{ID: id, Name: "ถนนลาดยาง"}}, 0); err != nil {
				t.Fatal(err)
			}
		}
	}
	alert("69222222221")
	if n := deliver(t, pool, a, clock); n != 3 || len(mail.sent) != 2 || line.sent != 1 {
		t.Fatalf("in plan: %d sent, mail %d, LINE %d", n, len(mail.sent), line.sent)
	}

	// Bob's plan lapses to free: his settings stay, nothing leaves by
	// e-mail or LINE; the bell still rings. Changing the rest is allowed.
	plans.set(bob, "free")
	alert("69222222222")
	if n := deliver(t, pool, a, clock); n != 1 || len(mail.sent) != 3 || line.sent != 1 {
		t.Fatalf("lapsed: %d sent, mail %d, LINE %d", n, len(mail.sent), line.sent)
	}
	if n := count(t, pool, `SELECT count(*) FROM deliveries d JOIN queue_jobs q ON q.kind = 'notification.delivery' AND q.key = d.id::text
		WHERE d.user_id = $1 AND q.failed_at IS NOT NULL`, bob); n != 2 {
		t.Fatalf("bob's deliveries given up: %d", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM notifications WHERE user_id = $1`, bob); n != 2 {
		t.Fatalf("bob's bell: %d", n)
	}
	kept := both
	kept.NotifyPayments = false
	if _, err := a.PutSettings(ctx, bob, kept); err != nil {
		t.Fatalf("a lapsed user changing other settings: %v", err)
	}
	if s, _ := a.Settings(ctx, bob); !s.EmailEnabled || !s.LineEnabled {
		t.Fatalf("a lapse changed the settings: %+v", s)
	}

	// The subscription service is unreachable: no channel turned on, the
	// deliveries wait and go once it answers.
	plans.mu.Lock()
	plans.down = true
	plans.mu.Unlock()
	carl := "33333333-3333-4333-8333-333333333333"
	if _, err := a.PutSettings(ctx, carl, email); apperr.KindOf(err) != apperr.Unavailable {
		t.Fatalf("unreachable: %v", err)
	}
	alert("69222222223")
	if n := deliver(t, pool, a, clock); n != 0 || len(mail.sent) != 3 {
		t.Fatalf("sent without knowing the plan: %d, mail %d", n, len(mail.sent))
	}
	plans.mu.Lock()
	plans.down = false
	plans.mu.Unlock()
	now = now.Add(domain.DeliveryRetries[0] + time.Second)
	if n := deliver(t, pool, a, clock); n != 1 || len(mail.sent) != 4 {
		t.Fatalf("after the outage: %d, mail %d", n, len(mail.sent))
	}

	// The daily digest: only for tiers with e-mail.
	dailyOn := domain.DefaultSettings
	dailyOn.EmailEnabled = true
	plans.set(carl, "starter")
	if _, err := a.PutSettings(ctx, carl, dailyOn); err != nil {
		t.Fatal(err)
	}
	if _, err := a.PutSettings(ctx, ann, dailyOn); err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{ann, carl} {
		if err := a.CriteriaMatched(ctx, "ev-d"+u, u, "c1", "ถนน", "", []domain.MatchedProject{{ID: "69222222224", Name: "ถนน"}}, 0); err != nil {
			t.Fatal(err)
		}
	}
	plans.set(ann, "free")
	now = time.Date(2026, 11, 25, 0, 30, 0, 0, time.UTC) // 07:30 Bangkok the next day
	before := len(mail.sent)
	if n, err := a.Digest(ctx); err != nil || n != 1 {
		t.Fatalf("digests %d (%v)", n, err)
	}
	if n := deliver(t, pool, a, clock); n != 1 || !strings.HasPrefix(mail.sent[before], carl[:4]+"@") {
		t.Fatalf("digests sent %d: %v", n, mail.sent[before:])
	}
}
