package postgres_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"bidradar/pkg/queue"
	"bidradar/pkg/runner"
	"bidradar/pkg/testutil/pgtest"
	"bidradar/services/subscription/internal/adapters/postgres"
	"bidradar/services/subscription/internal/app"
	"bidradar/services/subscription/internal/domain"
	"bidradar/services/subscription/migrations"
	"bidradar/services/subscription/subscriptionsvc"
)

// Upgrading a database from before the job queue: mail not yet sent and
// provider cancels move into it (a done cancel now still outranks a later
// stop at the period's end), every active plan gets its plan-end job, and
// the worker then runs them as if they had been queued there.
func TestUpgradeMovesRetriedWorkIntoTheQueue(t *testing.T) {
	ctx := context.Background()
	url := pgtest.NewDatabase(t)
	pool, err := runner.OpenDatabaseAt(ctx, url, subscriptionsvc.Schema, migrations.FS, 14)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	at := time.Date(2026, 11, 25, 3, 0, 0, 0, time.UTC)
	for _, q := range []string{
		`INSERT INTO mail_outbox (recipient, subject, body_text, attempts, next_attempt_at, sent_at) VALUES
			('ann@example.com', 'ใบเสร็จรับเงิน', 'receipt', 1, $1, NULL), ('bob@example.com', 'sent', NULL, 1, $1, $1)`,
		`INSERT INTO provider_cancels (subscription_id, at_period_end, attempts, next_attempt_at, last_error, created_at, done_at) VALUES
			('sub_now', false, 3, $1, 'stripe down', $1, NULL), ('sub_done', false, 1, $1, NULL, $1, $1),
			('sub_end', true, 0, $1, NULL, $1, NULL)`,
		`INSERT INTO subscriptions (user_id, tier, status, start_date, end_date) VALUES
			('ann', 'pro', 'active', '2026-11-01', '2026-11-30'), ('old', 'pro', 'expired', '2026-09-01', '2026-09-30'),
			('ent', 'enterprise', 'active', '2026-01-01', NULL)`,
	} {
		var args []any
		if strings.Contains(q, "$1") {
			args = append(args, at)
		}
		if _, err := pool.Exec(ctx, q, args...); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := subscriptionsvc.Open(ctx, url); err != nil {
		t.Fatal(err)
	}

	type job struct {
		kind, key string
		attempts  int
		next      time.Time
		done      bool
		to        string
	}
	rows, err := pool.Query(ctx, `SELECT kind, coalesce(key, ''), attempts, next_attempt_at, done_at IS NOT NULL, coalesce(payload->>'to', '')
		FROM queue_jobs ORDER BY kind, key`)
	if err != nil {
		t.Fatal(err)
	}
	var got []job
	for rows.Next() {
		var j job
		if err := rows.Scan(&j.kind, &j.key, &j.attempts, &j.next, &j.done, &j.to); err != nil {
			t.Fatal(err)
		}
		got = append(got, j)
	}
	planEnd := time.Date(2026, 12, 1, 0, 0, 0, 0, domain.Bangkok)
	want := []job{
		{kind: "mail", attempts: 1, next: at, to: "ann@example.com"},
		{kind: domain.JobCancelAtPeriodEnd, key: "sub_end", next: at},
		{kind: domain.JobCancelNow, key: "sub_done", attempts: 1, next: at, done: true},
		{kind: domain.JobCancelNow, key: "sub_now", attempts: 3, next: at},
		{kind: domain.JobPlanEnd, key: "ann", next: planEnd},
	}
	if len(got) != len(want) {
		t.Fatalf("jobs %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].kind != want[i].kind || got[i].key != want[i].key || got[i].attempts != want[i].attempts ||
			!got[i].next.Equal(want[i].next) || got[i].done != want[i].done || got[i].to != want[i].to {
			t.Fatalf("job %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	// A stop at the period's end asked after the done cancel now changes nothing.
	if err := fulfilCancel(postgres.New(pool), "evt_late", "sub_done", true, 49000, at); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM queue_jobs WHERE key = 'sub_done'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("%d jobs for sub_done (%v)", n, err)
	}

	// The plan-end job moves ann's plan on when it comes due.
	a := app.New(postgres.New(pool), nil, func() time.Time { return planEnd }, nil)
	w, err := queue.New(pool, queue.Options{Now: func() time.Time { return planEnd }, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}, a.Jobs()...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.RunDue(ctx); err != nil {
		t.Fatal(err)
	}
	if plan, err := a.Current(ctx, "ann"); err != nil || plan.Sub.Status != "expired" {
		t.Fatalf("ann after the plan-end job: %+v %v", plan.Sub, err)
	}
}
