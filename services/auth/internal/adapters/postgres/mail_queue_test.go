package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"bidradar/pkg/mail"
	"bidradar/services/auth/internal/adapters/postgres"
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
	if err := pool.QueryRow(ctx, `SELECT failed_at IS NOT NULL, body_text FROM mail_outbox`).Scan(&failed, &body); err != nil {
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
	if err := pool.QueryRow(ctx, `SELECT body_text FROM mail_outbox WHERE recipient = 'b@example.com'`).Scan(&body); err != nil || body != nil {
		t.Fatalf("sent body kept: %v %v", body, err)
	}
}
