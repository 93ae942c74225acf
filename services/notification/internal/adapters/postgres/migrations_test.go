package postgres_test

import (
	"context"
	"testing"
	"time"

	"bidradar/pkg/runner"
	"bidradar/pkg/testutil/pgtest"
	"bidradar/services/notification/internal/adapters/postgres"
	"bidradar/services/notification/internal/app"
	"bidradar/services/notification/internal/domain"
	"bidradar/services/notification/migrations"
	"bidradar/services/notification/notificationsvc"
)

// Upgrading a database from before the job queue: every delivery's
// attempts and state move into it (the webhook's delivery log still shows
// the sent and the given-up ones), a webhook's job goes to its host, and a
// pending delivery is then sent by the queue worker; changing the webhook
// moves its pending deliveries to the new host, and deleting the account
// takes the jobs with the deliveries.
func TestUpgradeMovesDeliveriesIntoTheQueue(t *testing.T) {
	ctx := context.Background()
	url := pgtest.NewDatabase(t)
	pool, err := runner.OpenDatabaseAt(ctx, url, notificationsvc.Schema, migrations.FS, 8)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	at := time.Date(2026, 11, 25, 3, 0, 0, 0, time.UTC)
	for _, q := range []string{
		`INSERT INTO notifications (id, user_id, dedup_key, category, priority, type, title, message, created_at) VALUES
			('aaaaaaaa-0000-4000-8000-000000000001', '` + ann + `', 'k1', 'search_match', 'normal', 'bell', 'ถนน', 'm', $1),
			('aaaaaaaa-0000-4000-8000-000000000002', '` + ann + `', 'k2', 'search_match', 'normal', 'bell', 'สะพาน', 'm', $1)`,
		`INSERT INTO webhooks (user_id, url, secret, created_at) VALUES ('` + ann + `', 'https://Hooks.Example.com:8443/in?x=1', 's', $1)`,
		`INSERT INTO deliveries (notification_id, user_id, channel, retry_key, attempts, next_attempt_at, sent_at, failed_at, last_error, last_status) VALUES
			('aaaaaaaa-0000-4000-8000-000000000001', '` + ann + `', 'webhook', gen_random_uuid(), 1, $1, $1, NULL, NULL, 204),
			('aaaaaaaa-0000-4000-8000-000000000001', '` + ann + `', 'email', gen_random_uuid(), 6, $1, NULL, $1, 'smtp down', 0),
			('aaaaaaaa-0000-4000-8000-000000000002', '` + ann + `', 'webhook', gen_random_uuid(), 2, $1, NULL, NULL, 'HTTP 503', 503)`,
	} {
		if _, err := pool.Exec(ctx, q, at); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := notificationsvc.Open(ctx, url); err != nil {
		t.Fatal(err)
	}
	var dests []string
	if err := pool.QueryRow(ctx, `SELECT array_agg(destination ORDER BY key::bigint) FROM queue_jobs WHERE kind = $1`, domain.JobDelivery).Scan(&dests); err != nil ||
		len(dests) != 3 || dests[0] != "webhook:hooks.example.com" || dests[1] != "email" || dests[2] != dests[0] ||
		dests[0] != domain.DeliveryDestination(domain.ChannelWebhook, "https://Hooks.Example.com:8443/in?x=1") {
		t.Fatalf("destinations %v (%v)", dests, err)
	}

	var posted []string
	a := app.New(postgres.New(pool), func() time.Time { return at }).WithChannels(app.Channels{Webhook: posterFunc(func(url string) (int, error) {
		posted = append(posted, url)
		return 204, nil
	})})
	_, _, log, err := a.Webhook(ctx, ann)
	if err != nil || len(log) != 2 || log[0].Status != "pending" || log[0].Attempts != 2 || log[0].LastError != "HTTP 503" ||
		log[1].Status != "sent" || log[1].LastStatusCode != 204 {
		t.Fatalf("the delivery log after the upgrade: %+v %v", log, err)
	}
	if _, err := a.SetWebhook(ctx, ann, "https://new.example.net/hook"); err != nil {
		t.Fatal(err)
	}
	var moved []string
	if err := pool.QueryRow(ctx, `SELECT array_agg(destination ORDER BY key::bigint) FROM queue_jobs WHERE kind = $1 AND destination LIKE 'webhook:%'`,
		domain.JobDelivery).Scan(&moved); err != nil || len(moved) != 2 || moved[0] != "webhook:hooks.example.com" || moved[1] != "webhook:new.example.net" {
		t.Fatalf("after the webhook changed: %v (%v): only the pending delivery moves", moved, err)
	}
	if n := deliver(t, pool, a, func() time.Time { return at }); n != 1 || len(posted) != 1 || posted[0] != "https://new.example.net/hook" {
		t.Fatalf("the pending delivery after the upgrade: %d sent to %v", n, posted)
	}
	if err := a.ForgetUser(ctx, ann); err != nil {
		t.Fatal(err)
	}
	if n := count(t, pool, `SELECT count(*) FROM queue_jobs`); n != 0 {
		t.Fatalf("%d jobs left of a deleted account", n)
	}
}

// posterFunc is a webhook poster answering with f.
type posterFunc func(url string) (int, error)

func (f posterFunc) Post(_ context.Context, url string, _ map[string]string, _ []byte) (int, error) {
	return f(url)
}
