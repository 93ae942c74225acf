package ports_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	authv1 "bidradar/gen/auth/v1"
	"bidradar/pkg/events"
	"bidradar/pkg/testutil/pgtest"
	"bidradar/services/subscription/internal/adapters/postgres"
	"bidradar/services/subscription/internal/app"
	"bidradar/services/subscription/internal/ports"
	"bidradar/services/subscription/subscriptionsvc"
)

// auth.v1.UserEmailChanged moves the stored address; a payload that does
// not decode or names no user or no address is rejected for good (through
// the consumer the service wires).
func TestEmailChangedEvent(t *testing.T) {
	ctx := context.Background()
	pool, err := subscriptionsvc.Open(ctx, pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if _, err := pool.Exec(ctx, `INSERT INTO subscriptions (user_id, tier, status, start_date, end_date, method, period, email)
		VALUES ('ann', 'pro', 'active', '2026-11-01', '2026-11-30', 'promptpay', 'monthly', 'ann@example.com')`); err != nil {
		t.Fatal(err)
	}
	h := ports.NewEvents(app.New(postgres.New(pool), nil, nil, nil))
	c := events.Durable("subscription-emails", events.On(h.EmailChanged))
	subject, err := events.SubjectOf(&authv1.UserEmailChanged{})
	if err != nil {
		t.Fatal(err)
	}
	at := timestamppb.New(time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC))
	enc := func(m *authv1.UserEmailChanged) []byte {
		b, _ := proto.Marshal(m)
		return b
	}
	for name, data := range map[string][]byte{
		"garbage":     []byte{0xff, 0xff, 0xff},
		"no user":     enc(&authv1.UserEmailChanged{EventId: "e", OccurredAt: at, Email: "x@example.com"}),
		"no address":  enc(&authv1.UserEmailChanged{EventId: "e", OccurredAt: at, UserId: "ann"}),
		"bad address": enc(&authv1.UserEmailChanged{EventId: "e", OccurredAt: at, UserId: "ann", Email: "Ann <x@example.com>"}),
		"no time":     enc(&authv1.UserEmailChanged{EventId: "e", UserId: "ann", Email: "x@example.com"}),
	} {
		if err := c.Handle(ctx, subject, "e-"+name, data); !errors.Is(err, events.ErrPermanent) {
			t.Errorf("%s: %v, want a permanent error", name, err)
		}
	}
	ok := enc(&authv1.UserEmailChanged{EventId: "e1", OccurredAt: at, UserId: "ann", Email: "ann.new@example.com"})
	if err := c.Handle(ctx, subject, "e1", ok); err != nil {
		t.Fatal(err)
	}
	var email string
	if err := pool.QueryRow(ctx, `SELECT email FROM subscriptions WHERE user_id = 'ann'`).Scan(&email); err != nil || email != "ann.new@example.com" {
		t.Fatalf("stored address %q %v", email, err)
	}
}
