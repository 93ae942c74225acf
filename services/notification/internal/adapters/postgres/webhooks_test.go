package postgres_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"bidradar/pkg/apperr"
	"bidradar/pkg/queue"
	"bidradar/pkg/testutil/pgtest"
	"bidradar/services/notification/internal/adapters/postgres"
	"bidradar/services/notification/internal/adapters/webhookpost"
	"bidradar/services/notification/internal/app"
	"bidradar/services/notification/internal/domain"
	"bidradar/services/notification/notificationsvc"
)

type hit struct {
	delivery, ts, sig string
	body              []byte
}

// An alert reaches the user's webhook signed with its secret: the receiver
// failing once is retried after the backoff with the same delivery id and
// a fresh signature, then recorded as sent in the delivery log; a removed
// webhook is told apart.
func TestWebhookSignedRetriedLogged(t *testing.T) {
	pool, err := notificationsvc.Open(context.Background(), pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	var mu sync.Mutex
	var hits []hit
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		hits = append(hits, hit{r.Header.Get(domain.HeaderWebhookDelivery), r.Header.Get(domain.HeaderWebhookTimestamp), r.Header.Get(domain.HeaderWebhookSignature), b})
		n := len(hits)
		mu.Unlock()
		if n == 1 {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer receiver.Close()

	now := time.Date(2026, 11, 24, 5, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	a := app.New(postgres.New(pool), clock).
		WithChannels(app.Channels{Webhook: webhookpost.New(true), PublicURL: "https://bidradar.example", AllowPrivateWebhooks: true})
	ctx := context.Background()

	for _, bad := range []string{"ftp://x.example/h", "http://hooks.example.com/x", "https://user:pw@hooks.example.com/", "https://", "not a url", ""} {
		if _, err := a.SetWebhook(ctx, ann, bad); !errors.Is(err, domain.ErrInvalidWebhookURL) {
			t.Errorf("SetWebhook(%q): %v", bad, err)
		}
	}
	strict := app.New(postgres.New(pool), nil).WithChannels(app.Channels{})
	if _, err := strict.SetWebhook(ctx, bob, receiver.URL); !errors.Is(err, domain.ErrInvalidWebhookURL) {
		t.Errorf("without the development flag took %s: %v", receiver.URL, err)
	}
	first, err := a.SetWebhook(ctx, ann, "https://old.example/hook")
	if err != nil {
		t.Fatal(err)
	}
	w, err := a.SetWebhook(ctx, ann, receiver.URL+"/hook")
	if err != nil || w.Secret == first.Secret || len(w.Secret) < 40 {
		t.Fatalf("set again: %+v %v (the secret must change)", w, err)
	}

	p := []domain.MatchedProject{{ID: "69222222222", Name: "ก่อสร้างสะพาน", Agency: "กรม"}}
	if err := a.CriteriaMatched(ctx, "ev-w", ann, "c1", "สะพาน", "", p, 0); err != nil {
		t.Fatal(err)
	}
	if err := a.CriteriaMatched(ctx, "ev-w", bob, "c1", "สะพาน", "", p, 0); err != nil { // bob has no webhook
		t.Fatal(err)
	}
	if n := deliver(t, pool, a, clock); n != 0 {
		t.Fatalf("first attempt: sent %d", n)
	}
	_, _, log, err := a.Webhook(ctx, ann)
	if err != nil || len(log) != 1 || log[0].Status != "pending" || log[0].Attempts != 1 || log[0].LastStatusCode != 503 ||
		log[0].LastError != "HTTP 503" || !log[0].NextAttemptAt.Equal(now.Add(domain.DeliveryRetries[0])) {
		t.Fatalf("log after a failure: %+v %v", log, err)
	}
	now = now.Add(30 * time.Second) // backoff not over
	if n := deliver(t, pool, a, clock); n != 0 {
		t.Fatal("retried before the backoff")
	}
	now = now.Add(31 * time.Second)
	if n := deliver(t, pool, a, clock); n != 1 {
		t.Fatalf("retry: sent %d", n)
	}
	now = now.Add(24 * time.Hour)
	if n := deliver(t, pool, a, clock); n != 0 {
		t.Fatal("sent again")
	}

	if len(hits) != 2 || hits[0].delivery == "" || hits[0].delivery != hits[1].delivery || hits[0].ts == hits[1].ts {
		t.Fatalf("hits %+v", hits)
	}
	for _, h := range hits {
		ts, _ := strconv.ParseInt(h.ts, 10, 64)
		m := hmac.New(sha256.New, []byte(w.Secret))
		m.Write([]byte(h.ts + "."))
		m.Write(h.body)
		if want := "v1=" + hex.EncodeToString(m.Sum(nil)); h.sig != want || domain.SignWebhook(w.Secret, ts, h.body) != want {
			t.Fatalf("signature %s, want %s", h.sig, want)
		}
		var body struct {
			Type         string `json:"type"`
			Notification struct {
				ID, Title, Category, URL string
				ProjectID                string `json:"project_id"`
			} `json:"notification"`
		}
		if err := json.Unmarshal(h.body, &body); err != nil || body.Type != "notification" || body.Notification.Category != "search_match" ||
			body.Notification.ProjectID != "69222222222" || body.Notification.URL != "https://bidradar.example/project-details/69222222222" || body.Notification.ID == "" {
			t.Fatalf("body %s %v", h.body, err)
		}
	}
	hook, ok, log, err := a.Webhook(ctx, ann)
	if err != nil || !ok || hook.URL != receiver.URL+"/hook" || hook.SecretHint() != w.Secret[len(w.Secret)-4:] ||
		len(log) != 1 || log[0].Status != "sent" || log[0].Attempts != 2 || log[0].LastStatusCode != 204 || log[0].SentAt == nil {
		t.Fatalf("after the retry: %+v %v %+v %v", hook, ok, log, err)
	}
	if _, ok, log, _ := a.Webhook(ctx, bob); ok || len(log) != 0 {
		t.Fatalf("bob: %v %+v", ok, log)
	}
	if err := a.DeleteWebhook(ctx, ann); err != nil {
		t.Fatal(err)
	}
	var ae *apperr.Error
	if err := a.DeleteWebhook(ctx, ann); !errors.As(err, &ae) || ae.Kind != apperr.NotFound {
		t.Fatalf("delete twice: %v", err)
	}
}

// events records what happened, in order, across goroutines.
type events struct {
	mu  sync.Mutex
	log []string
}

func (e *events) add(s string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.log = append(e.log, s)
}

func (e *events) list() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.log...)
}

type signalMail struct {
	ev   *events
	done chan struct{}
}

func (m signalMail) Mail(_ context.Context, to, _, _ string) error {
	m.ev.add("mail " + to)
	close(m.done)
	return nil
}

type signalLine struct {
	ev   *events
	done chan struct{}
}

func (l signalLine) Push(_ context.Context, to, _, retryKey string) error {
	if retryKey == "" {
		return errors.New("no retry key")
	}
	l.ev.add("line " + to)
	close(l.done)
	return nil
}

// A webhook receiver slow to answer holds up its own delivery only: bob's
// e-mail and LINE message, due after ann's webhook, go out while the
// receiver is still holding ann's request (it answers only once they have,
// or when the client gives up after its 10 s), and each delivery is then
// recorded as sent.
func TestSlowWebhookDoesNotHoldOthers(t *testing.T) {
	pool, err := notificationsvc.Open(context.Background(), pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	ev := &events{}
	mailed, pushed := make(chan struct{}), make(chan struct{})
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ev.add("webhook received")
		for _, c := range []chan struct{}{mailed, pushed} {
			select {
			case <-c:
			case <-r.Context().Done(): // the client gave up: the others were held behind this
				return
			}
		}
		ev.add("webhook answered")
		w.WriteHeader(http.StatusNoContent)
	}))
	defer receiver.Close()

	now := time.Date(2026, 11, 24, 5, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	a := app.New(postgres.New(pool), clock).WithChannels(app.Channels{
		Contacts: fakeContacts{}, Mail: signalMail{ev, mailed}, Line: signalLine{ev, pushed},
		Webhook: webhookpost.New(true), PublicURL: "https://bidradar.example", AllowPrivateWebhooks: true, Plans: allPlans{},
	})
	ctx := context.Background()
	if _, err := a.SetWebhook(ctx, ann, receiver.URL+"/hook"); err != nil {
		t.Fatal(err)
	}
	s := domain.DefaultSettings
	s.EmailEnabled, s.EmailDigest, s.LineEnabled, s.LineUserID = true, "instant", true, "U"+strings.Repeat("2", 32)
	if _, err := a.PutSettings(ctx, bob, s); err != nil {
		t.Fatal(err)
	}
	// Ann's webhook is due first, so a one-at-a-time worker would send it first.
	if err := a.InterestChanged(ctx, ann, "69111111111", true, false, false, now); err != nil {
		t.Fatal(err)
	}
	if err := a.InterestChanged(ctx, bob, "69222222222", true, false, false, now); err != nil {
		t.Fatal(err)
	}
	if err := a.AnnouncementAdded(ctx, "step-a", "69111111111", "สะพาน", "ประกาศผู้ชนะ", "2026-11-24"); err != nil {
		t.Fatal(err)
	}
	now = now.Add(time.Second)
	if err := a.AnnouncementAdded(ctx, "step-b", "69222222222", "ถนน", "ประกาศผู้ชนะ", "2026-11-24"); err != nil {
		t.Fatal(err)
	}
	var channels []string
	rows, _ := pool.Query(ctx, `SELECT d.channel FROM deliveries d JOIN queue_jobs q ON q.kind = 'notification.delivery' AND q.key = d.id::text
		ORDER BY q.next_attempt_at, d.channel`)
	for rows.Next() {
		var c string
		_ = rows.Scan(&c)
		channels = append(channels, c)
	}
	if rows.Err() != nil || strings.Join(channels, ",") != "webhook,email,line" {
		t.Fatalf("deliveries due %v %v, want ann's webhook first", channels, rows.Err())
	}

	now = now.Add(time.Second)
	w, err := queue.New(pool, queue.Options{Now: clock, Log: quietLog}, a.Jobs()...)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := w.RunDue(ctx); err != nil || st.Done != 3 {
		t.Fatalf("%+v %v, want 3 sent (events %v)", st, err, ev.list())
	}
	got := ev.list()
	if len(got) != 4 || got[3] != "webhook answered" {
		t.Fatalf("events %v: bob's e-mail and LINE must go out while ann's webhook is still waiting", got)
	}
	var sent int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM queue_jobs
		WHERE kind = 'notification.delivery' AND done_at IS NOT NULL AND failed_at IS NULL AND attempts = 1`).Scan(&sent); err != nil || sent != 3 {
		t.Fatalf("%d deliveries recorded sent, want 3 (%v)", sent, err)
	}
}
