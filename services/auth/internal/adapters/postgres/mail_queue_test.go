package postgres_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"bidradar/pkg/mail"
	"bidradar/pkg/pgdb"
	"bidradar/pkg/queue"
	"bidradar/pkg/testutil/pgtest"
	"bidradar/services/auth/internal/adapters/postgres"
	"bidradar/services/auth/migrations"
)

func TestMailQueueRetriesThenGivesUpAndErasesBodies(t *testing.T) {
	_, pool := newStore(t)
	q := postgres.NewMailQueue(pool)
	ctx := context.Background()
	if err := q.Enqueue(ctx, pool, mail.Message{To: "a@example.com", Subject: "code", Text: "123456"}); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	fail := func(context.Context, mail.Message) error { return errors.New("421 try later") }
	if n, err := q.DeliverDue(ctx, 10, now, fail); n != 1 || err != nil {
		t.Fatalf("first attempt: %d %v", n, err)
	}
	// Not due again before its backoff.
	if n, _ := q.DeliverDue(ctx, 10, now, fail); n != 0 {
		t.Fatal("retried before the backoff")
	}
	for i := 2; i <= postgres.MailMaxAttempts; i++ {
		now = now.Add(15 * time.Minute)
		if n, err := q.DeliverDue(ctx, 10, now, fail); n != 1 || err != nil {
			t.Fatalf("attempt %d: %d %v", i, n, err)
		}
	}
	var failed bool
	var body *string
	if err := pool.QueryRow(ctx, `SELECT failed_at IS NOT NULL, payload::text FROM queue_jobs WHERE kind = 'mail'`).Scan(&failed, &body); err != nil {
		t.Fatal(err)
	}
	if !failed || body != nil {
		t.Fatalf("after %d failures: failed %v, body kept %v", postgres.MailMaxAttempts, failed, body)
	}

	// A message that goes through: sent once, its body (the code) erased.
	if err := q.Enqueue(ctx, pool, mail.Message{To: "b@example.com", Subject: "code", Text: "654321"}); err != nil {
		t.Fatal(err)
	}
	var got []mail.Message
	ok := func(_ context.Context, m mail.Message) error { got = append(got, m); return nil }
	if n, err := q.DeliverDue(ctx, 10, time.Now(), ok); n != 1 || err != nil || len(got) != 1 || got[0].Text != "654321" {
		t.Fatalf("delivery: %d %v %v", n, err, got)
	}
	if n, _ := q.DeliverDue(ctx, 10, time.Now().Add(time.Hour), ok); n != 0 {
		t.Fatal("a sent message was sent again")
	}
	if err := pool.QueryRow(ctx, `SELECT payload::text FROM queue_jobs WHERE kind = 'mail' AND done_at IS NOT NULL`).Scan(&body); err != nil || body != nil {
		t.Fatalf("sent body kept: %v %v", body, err)
	}
}

// Upgrading a database whose mail waited in the service's own mail_outbox:
// the messages not yet sent move to the job queue and go out from there;
// sent and given-up ones (their bodies erased already) are not kept.
func TestMailOutboxMovesToTheQueue(t *testing.T) {
	ctx := context.Background()
	pool, err := pgdb.Open(ctx, pgtest.NewDatabase(t), postgres.Schema)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := queue.Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	if err := pgdb.MigrateUpTo(ctx, pool, postgres.Schema, migrations.FS, 6); err != nil {
		t.Fatal(err)
	}
	due := time.Date(2026, 3, 4, 5, 0, 0, 0, time.UTC)
	if _, err := pool.Exec(ctx, `INSERT INTO mail_outbox (recipient, subject, body_text, body_html, attempts, next_attempt_at, sent_at, failed_at) VALUES
		('a@example.com', 'รหัสยืนยัน', '123456', NULL, 2, $1, NULL, NULL),
		('b@example.com', 'sent', NULL, NULL, 1, $1, $1, NULL),
		('c@example.com', 'given up', NULL, NULL, 8, $1, NULL, $1)`, due); err != nil {
		t.Fatal(err)
	}
	if err := postgres.Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	var gone bool
	if err := pool.QueryRow(ctx, `SELECT to_regclass('mail_outbox') IS NULL`).Scan(&gone); err != nil || !gone {
		t.Fatalf("mail_outbox still there (%v)", err)
	}
	var got []mail.Message
	var attempts []int
	n, err := postgres.NewMailQueue(pool).DeliverDue(ctx, 10, due, func(_ context.Context, m mail.Message) error {
		got = append(got, m)
		return nil
	})
	_ = pool.QueryRow(ctx, `SELECT array_agg(attempts) FROM queue_jobs`).Scan(&attempts)
	if err != nil || n != 1 || len(got) != 1 || got[0] != (mail.Message{To: "a@example.com", Subject: "รหัสยืนยัน", Text: "123456"}) ||
		len(attempts) != 1 || attempts[0] != 3 {
		t.Fatalf("after the upgrade: %d %v %+v, attempts %v", n, err, got, attempts)
	}
	// Not undone (the older table is gone): a roll-back stops at it.
	if err := pgdb.MigrateDownTo(ctx, pool, postgres.Schema, migrations.FS, 6); err == nil || !strings.Contains(err.Error(), "restore a backup") {
		t.Fatalf("rolled back past the mail's move: %v", err)
	}
}
