package postgres_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"bidradar/pkg/testutil/pgtest"
	"bidradar/services/notification/internal/adapters/postgres"
	"bidradar/services/notification/internal/app"
	"bidradar/services/notification/internal/domain"
	"bidradar/services/notification/notificationsvc"
)

// linked knows the LINE user each account proved through LINE Login.
type linked map[string]string

func (l linked) Contact(_ context.Context, id string) (domain.Contact, error) {
	return domain.Contact{Email: id[:4] + "@example.com", LineID: l[id]}, nil
}

type pushes struct {
	mu sync.Mutex
	to []string
}

func (p *pushes) Push(_ context.Context, to, _, _ string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.to = append(p.to, to)
	return nil
}

// A LINE alert goes only to the LINE user the account proved (LINE Login or
// a link flow, auth's line_id1): a LINE user id typed into the settings
// would let anyone make the operator's LINE account message a stranger, so
// it is not kept and never pushed to.
func TestLinePushOnlyToTheProvenLineUser(t *testing.T) {
	pool, err := notificationsvc.Open(context.Background(), pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	now := time.Date(2026, 11, 25, 3, 0, 0, 0, time.UTC)
	proven := "U" + strings.Repeat("a", 32)
	stranger := "U" + strings.Repeat("b", 32)
	line := &pushes{}
	clock := func() time.Time { return now }
	a := app.New(postgres.New(pool), clock).WithChannels(app.Channels{
		Contacts: linked{ann: proven}, Line: line, Mail: &flakyMail{}, PublicURL: "https://app.example", Plans: allPlans{},
	})
	ctx := context.Background()
	for _, user := range []string{ann, bob} { // bob has linked no LINE account
		s := domain.DefaultSettings
		s.LineEnabled, s.LineUserID = true, stranger
		got, err := a.PutSettings(ctx, user, s)
		if err != nil {
			t.Fatal(err)
		}
		if got.LineUserID != "" {
			t.Fatalf("the typed LINE user id is kept: %+v", got)
		}
		if stored, err := a.Settings(ctx, user); err != nil || stored.LineUserID != "" || !stored.LineEnabled {
			t.Fatalf("stored settings %+v, %v", stored, err)
		}
		if err := a.CriteriaMatched(ctx, "ev-"+user, user, "c1", "ถนน", "", []domain.MatchedProject{{ID: "69222222222", Name: "ถนนลาดยาง"}}, 0); err != nil {
			t.Fatal(err)
		}
	}
	// A value typed before this rule (kept by an older version) is ignored too.
	if _, err := pool.Exec(ctx, `UPDATE settings SET line_user_id = $1`, stranger); err != nil {
		t.Fatal(err)
	}
	deliver(t, pool, a, clock)
	if len(line.to) != 1 || line.to[0] != proven {
		t.Fatalf("LINE pushes to %v, want only %s", line.to, proven)
	}
	if n := count(t, pool, `SELECT count(*) FROM deliveries d JOIN queue_jobs q ON q.kind = 'notification.delivery' AND q.key = d.id::text
		WHERE d.channel = 'line' AND d.user_id = $1 AND q.failed_at IS NOT NULL AND q.done_at IS NULL`, bob); n != 1 {
		t.Fatalf("bob's LINE delivery (no linked LINE account): %d given up", n)
	}
}
