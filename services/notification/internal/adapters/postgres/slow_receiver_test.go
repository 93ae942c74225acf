package postgres_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"bidradar/pkg/mail"
	"bidradar/pkg/queue"
	"bidradar/pkg/testutil/pgtest"
	"bidradar/pkg/testutil/smtptest"
	"bidradar/services/notification/internal/adapters/postgres"
	"bidradar/services/notification/internal/adapters/webhookpost"
	"bidradar/services/notification/internal/app"
	"bidradar/services/notification/internal/domain"
	"bidradar/services/notification/notificationsvc"
)

// smtpMail is the service's e-mail channel on a pkg/mail sender.
type smtpMail struct{ s mail.Sender }

func (m smtpMail) Mail(ctx context.Context, to, subject, text string) error {
	return m.s.Send(ctx, mail.Message{To: to, Subject: subject, Text: text})
}

// A webhook receiver that takes 10 s to answer does not delay another
// user's e-mail by more than a second: with ann's receiver holding every
// request the worker sends it (its destination's slots full, more of her
// alerts than the worker runs at once waiting behind them), bob's alert, written meanwhile, reaches the
// SMTP server within a second, through the queue worker as the service
// runs it (woken by the insert, no poll).
func TestSlowWebhookReceiverDelaysNoOtherUsersMail(t *testing.T) {
	ctx := context.Background()
	pool, err := notificationsvc.Open(ctx, pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	var held atomic.Int64
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // read: a client going away then ends r.Context()
		held.Add(1)
		defer held.Add(-1)
		select {
		case <-time.After(10 * time.Second):
			w.WriteHeader(http.StatusNoContent)
		case <-r.Context().Done():
		}
	}))
	defer receiver.Close()
	smtp := smtptest.Start(t)
	sender, err := mail.NewSMTPSender(mail.Config{Host: "127.0.0.1", Port: smtp.Port(), TLS: mail.TLSNone, From: mail.DefaultFrom})
	if err != nil {
		t.Fatal(err)
	}
	a := app.New(postgres.New(pool), nil).WithChannels(app.Channels{
		Contacts: fakeContacts{}, Mail: smtpMail{sender}, Plans: allPlans{}, PublicURL: "https://bidradar.example",
		Webhook: webhookpost.New(true), AllowPrivateWebhooks: true,
	})
	if _, err := a.SetWebhook(ctx, ann, receiver.URL+"/hook"); err != nil {
		t.Fatal(err)
	}
	s := domain.DefaultSettings
	s.EmailEnabled, s.EmailDigest = true, "instant"
	if _, err := a.PutSettings(ctx, bob, s); err != nil {
		t.Fatal(err)
	}
	w, err := queue.New(pool, queue.Options{Log: quietLog, Poll: time.Minute}, a.Jobs()...) // as notificationsvc runs it, but polling once a minute: the insert wakes it
	if err != nil {
		t.Fatal(err)
	}
	wctx, stop := context.WithCancel(ctx)
	stopped := make(chan struct{})
	go func() { w.Run(wctx); close(stopped) }()
	defer func() { stop(); <-stopped }()

	for i := range 20 { // more than the worker runs at once
		id := fmt.Sprint(69111111100 + i)
		if err := a.CriteriaMatched(ctx, "ev-"+id, ann, "c1", "สะพาน", "", []domain.MatchedProject{{ID: id, Name: "สะพาน"}}, 0); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for held.Load() < 4 { // the receiver's host has its slots full
		if time.Now().After(deadline) {
			t.Fatalf("the receiver holds %d requests, want 4", held.Load())
		}
		time.Sleep(10 * time.Millisecond)
	}

	start := time.Now()
	if err := a.CriteriaMatched(ctx, "ev-bob", bob, "c1", "ถนน", "", []domain.MatchedProject{{ID: "69222222222", Name: "ถนนลาดยาง"}}, 0); err != nil {
		t.Fatal(err)
	}
	m, err := smtp.WaitFor("2222@example.com", 5*time.Second)
	if err != nil {
		t.Fatalf("bob's e-mail: %v", err)
	}
	if took := time.Since(start); took > time.Second {
		t.Fatalf("bob's e-mail took %s behind ann's slow webhook receiver, want under a second", took)
	} else {
		t.Logf("bob's e-mail reached the SMTP server %s after his alert (ann's receiver holding %d requests)", took.Round(time.Millisecond), held.Load())
	}
	if m.Subject == "" || held.Load() != 4 {
		t.Fatalf("subject %q; the receiver holds %d", m.Subject, held.Load())
	}
}
