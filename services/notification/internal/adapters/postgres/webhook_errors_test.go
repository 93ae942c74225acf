package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"bidradar/pkg/testutil/pgtest"
	"bidradar/services/notification/internal/adapters/postgres"
	"bidradar/services/notification/internal/app"
	"bidradar/services/notification/internal/domain"
	"bidradar/services/notification/notificationsvc"
)

type rawPoster struct{ err error }

func (p rawPoster) Post(context.Context, string, map[string]string, []byte) (int, error) {
	return 0, p.err
}

// The webhook's delivery log shows the user why a delivery failed in a few
// words (the app translates them): a named problem, never the text of
// whatever error came back.
func TestWebhookLogNamesTheProblemOnly(t *testing.T) {
	pool, err := notificationsvc.Open(context.Background(), pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	now := time.Date(2026, 11, 25, 3, 0, 0, 0, time.UTC)
	ctx := context.Background()
	for i, tt := range []struct {
		err  error
		want string
	}{
		{&domain.WebhookError{Problem: domain.WebhookTimedOut, Cause: errors.New("dial tcp 203.0.113.9:443: i/o timeout")}, "timed out"},
		{&domain.WebhookError{Status: 502}, "HTTP 502"},
		{errors.New("dial tcp 10.1.2.3:443: connect: connection refused"), "connection failed"},
	} {
		user := []string{ann, bob, "33333333-3333-4333-8333-333333333333"}[i]
		clock := func() time.Time { return now }
		a := app.New(postgres.New(pool), clock).WithChannels(app.Channels{Webhook: rawPoster{tt.err}})
		if _, err := a.SetWebhook(ctx, user, "https://hooks.example.com/in"); err != nil {
			t.Fatal(err)
		}
		if err := a.CriteriaMatched(ctx, "ev-"+user, user, "c1", "ถนน", "", []domain.MatchedProject{{ID: "69222222222", Name: "ถนนลาดยาง"}}, 0); err != nil {
			t.Fatal(err)
		}
		deliver(t, pool, a, clock)
		_, _, log, err := a.Webhook(ctx, user)
		if err != nil || len(log) != 1 || log[0].LastError != tt.want {
			t.Fatalf("%v: log %+v, %v; want %q", tt.err, log, err, tt.want)
		}
	}
}
