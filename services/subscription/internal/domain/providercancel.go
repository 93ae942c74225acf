package domain

import (
	"errors"
	"time"
)

// The queue kinds (pkg/queue) of a ProviderCancel, keyed by the provider's
// subscription id: one job of each kind at most. A cancel now replaces a
// stop at the period's end still pending; once a cancel now is asked for,
// a stop at the period's end has nothing left to do.
const (
	JobCancelNow         = "subscription.cancel-now"
	JobCancelAtPeriodEnd = "subscription.cancel-at-period-end"
	// ProviderDestination: the provider's API, one destination for the
	// queue's per-destination limit.
	ProviderDestination = "provider"
)

// ErrProviderSubGone: the provider no longer has the subscription running
// (cancelled already, or unknown): a request to stop it is fulfilled.
// Providers wrap it into the error they return.
var ErrProviderSubGone = errors.New("the provider subscription is cancelled already or does not exist")

// CancelAlarmAttempts is the attempt from which a provider cancel still
// failing is logged as needing an operator: the old card may keep charging.
const CancelAlarmAttempts = 10

// CancelRetryAfter is how long a provider cancel waits after its attempts-th
// failed call: 1 min, 5 min, 30 min, 2 h, then every 6 h for ever.
func CancelRetryAfter(attempts int) time.Duration {
	switch {
	case attempts <= 1:
		return time.Minute
	case attempts == 2:
		return 5 * time.Minute
	case attempts == 3:
		return 30 * time.Minute
	case attempts == 4:
		return 2 * time.Hour
	}
	return 6 * time.Hour
}

// ForDeletion is what deleting the account does to its plan: every card
// subscription that could still charge the user — the plan's, the one of a
// plan waiting after it, and others the provider reported (running) — is
// cancelled at the provider now, not at its period's end (the account that
// would use the days left is gone; they are not refunded), and an active
// plan ends today with nothing waiting after it. changed is false when the
// plan needs no write (none, or ended already).
func ForDeletion(s Subscription, found bool, running []string, now time.Time) (plan Subscription, cancels []ProviderCancel, changed bool) {
	seen := map[string]bool{}
	add := func(id string) {
		if id != "" && !seen[id] {
			seen[id] = true
			cancels = append(cancels, ProviderCancel{SubscriptionID: id})
		}
	}
	if found {
		add(s.ProviderSubscriptionID)
		if s.Next != nil {
			add(s.Next.ProviderSubscriptionID)
		}
	}
	for _, id := range running {
		add(id)
	}
	if !found || s.Status != "active" {
		return s, cancels, false
	}
	today := DayOf(now)
	s.Status, s.Next, s.CancelAtPeriodEnd = "cancelled", nil, false
	if s.EndDate == nil || s.EndDate.After(today) {
		s.EndDate = &today
	}
	return s, cancels, true
}
