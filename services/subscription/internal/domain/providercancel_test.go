package domain_test

import (
	"testing"
	"time"

	"bidradar/services/subscription/internal/domain"
)

// A failed provider cancel waits 1 min, 5 min, 30 min, 2 h, then 6 h for
// ever.
func TestCancelRetryAfter(t *testing.T) {
	want := []time.Duration{time.Minute, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 6 * time.Hour, 6 * time.Hour}
	for i, w := range want {
		if got := domain.CancelRetryAfter(i + 1); got != w {
			t.Errorf("after attempt %d: %s, want %s", i+1, got, w)
		}
	}
	if got := domain.CancelRetryAfter(1000); got != 6*time.Hour {
		t.Errorf("after attempt 1000: %s", got)
	}
}

// Deleting the account cancels every card subscription that could charge
// (the plan's, a waiting plan's, others still running) now, and ends the
// plan today.
func TestForDeletion(t *testing.T) {
	now := time.Date(2026, 11, 25, 10, 0, 0, 0, domain.Bangkok)
	end := time.Date(2026, 12, 9, 0, 0, 0, 0, time.UTC)
	s := domain.Subscription{UserID: "u1", Tier: "pro", Status: "active", EndDate: &end, Method: "card",
		ProviderSubscriptionID: "sub_pro", CancelAtPeriodEnd: true,
		Next: &domain.NextPlan{Tier: "starter", Method: "card", ProviderSubscriptionID: "sub_starter", EndDate: end.AddDate(0, 1, 0)}}
	plan, cancels, changed := domain.ForDeletion(s, true, []string{"sub_starter", "sub_old"}, now)
	want := []domain.ProviderCancel{{SubscriptionID: "sub_pro"}, {SubscriptionID: "sub_starter"}, {SubscriptionID: "sub_old"}}
	if !changed || len(cancels) != 3 || cancels[0] != want[0] || cancels[1] != want[1] || cancels[2] != want[2] {
		t.Fatalf("cancels %+v changed %v", cancels, changed)
	}
	if plan.Status != "cancelled" || plan.Next != nil || plan.CancelAtPeriodEnd || plan.EndDate.Format(time.DateOnly) != "2026-11-25" {
		t.Fatalf("plan %+v", plan)
	}
	if _, cancels, changed := domain.ForDeletion(plan, true, nil, now.Add(time.Hour)); changed || len(cancels) != 1 {
		t.Fatalf("again: %+v %v", cancels, changed)
	}
	if _, cancels, changed := domain.ForDeletion(domain.Subscription{}, false, nil, now); changed || len(cancels) != 0 {
		t.Fatalf("no plan: %+v %v", cancels, changed)
	}
}
