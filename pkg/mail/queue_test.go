package mail_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"bidradar/pkg/mail"
	"bidradar/pkg/pgdb"
	"bidradar/pkg/queue"
	"bidradar/pkg/testutil/pgtest"
	"bidradar/pkg/testutil/smtptest"
)

// Mail queued in a transaction goes out through a service's queue worker
// to a real SMTP server; an address no retry can mend is given up at once;
// a deleted account's pending mail is dropped and a changed address's is
// redirected.
func TestQueuedMailThroughTheWorker(t *testing.T) {
	ctx := context.Background()
	pool, err := pgdb.Open(ctx, pgtest.NewDatabase(t), "svc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := queue.Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	srv := smtptest.Start(t)
	sender, err := mail.NewSMTPSender(mail.Config{Host: "127.0.0.1", Port: srv.Port(), TLS: mail.TLSNone, From: mail.DefaultFrom})
	if err != nil {
		t.Fatal(err)
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []mail.Message{
		{To: "ann@example.com", Subject: "ใบเสร็จ", Text: "receipt"},
		{To: "not an address", Subject: "x", Text: "x"},
		{To: "gone@example.com", Subject: "x", Text: "x"},
		{To: "old@example.com", Subject: "moved", Text: "x"},
		{Subject: "no recipient: dropped", Text: "x"},
	} {
		if err := mail.Enqueue(ctx, tx, m, time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := mail.DropPending(ctx, pool, []string{"gone@example.com"}); err != nil {
		t.Fatal(err)
	}
	if err := mail.Redirect(ctx, pool, []string{"old@example.com"}, "new@example.com"); err != nil {
		t.Fatal(err)
	}
	w, err := queue.New(pool, queue.Options{Log: slog.New(slog.NewTextHandler(io.Discard, nil))},
		mail.Kind(mail.Policy{MaxAttempts: 5}, sender))
	if err != nil {
		t.Fatal(err)
	}
	st, err := w.RunDue(ctx)
	if err != nil || st.Claimed != 3 || st.Done != 2 || st.GivenUp != 1 {
		t.Fatalf("%+v %v", st, err)
	}
	got := map[string]string{}
	for _, m := range srv.Messages() {
		got[m.To] = m.Subject
	}
	if len(got) != 2 || got["ann@example.com"] != "ใบเสร็จ" || got["new@example.com"] != "moved" {
		t.Fatalf("received %v", got)
	}
	var kept int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM queue_jobs WHERE payload IS NOT NULL`).Scan(&kept); err != nil || kept != 0 {
		t.Fatalf("%d bodies kept (%v)", kept, err)
	}
}
