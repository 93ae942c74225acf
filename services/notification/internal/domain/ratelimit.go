package domain

import (
	"context"
	"fmt"
	"time"

	"bidradar/pkg/apperr"
)

// RateLimit is a per-account limit: at most Max calls of Action within any
// Window; the next is refused with Err (429) until the oldest counted call
// leaves the window.
type RateLimit struct {
	Action string
	Max    int
	Window time.Duration
	Err    *apperr.Error
}

// Limits are the account limits of the notification service.
type Limits struct {
	// Test: test notifications, POST /bell/notifications/test and
	// test-multiple together (each call writes rows and pushes them live).
	Test RateLimit
	// Webhook: setting or removing the webhook (each set makes a secret and
	// points our requests at a new address).
	Webhook RateLimit
}

// Rate-limit answers.
var (
	ErrTestTooMany = apperr.New(apperr.ResourceExhausted, "test-notifications-too-many",
		"Too many test notifications. Please try again in a minute.")
	ErrWebhookChangesTooMany = apperr.New(apperr.ResourceExhausted, "webhook-changes-too-many",
		"The webhook was changed too many times. Please try again later.")
)

// DefaultLimits: 30 test notifications a minute, 20 webhook changes an hour.
var DefaultLimits = Limits{
	Test:    RateLimit{Action: "test", Max: 30, Window: time.Minute, Err: ErrTestTooMany},
	Webhook: RateLimit{Action: "webhook", Max: 20, Window: time.Hour, Err: ErrWebhookChangesTooMany},
}

// RateLimited is a call over its limit: the 429 and when to try again
// (the transport sends it as Retry-After).
type RateLimited struct {
	Err        *apperr.Error
	RetryAfter time.Duration
}

// Error implements error.
func (e *RateLimited) Error() string { return e.Err.Error() }

// Unwrap lets errors.As find the *apperr.Error and errors.Is match the sentinel.
func (e *RateLimited) Unwrap() error { return e.Err }

// RetryAfterSeconds is RetryAfter in whole seconds, at least 1.
func (e *RateLimited) RetryAfterSeconds() int {
	s := int((e.RetryAfter + time.Second - 1) / time.Second)
	return max(s, 1)
}

// Refuse is the error of a call that must wait.
func (l RateLimit) Refuse(wait time.Duration) error {
	return &RateLimited{Err: l.Err, RetryAfter: wait}
}

// Validate checks a limit read from the configuration.
func (l RateLimit) Validate() error {
	if l.Action == "" || l.Max < 1 || l.Window <= 0 || l.Err == nil {
		return fmt.Errorf("rate limit %q: want an action, a positive max and window, and an error", l.Action)
	}
	return nil
}

// RateStore counts an account's calls; checking and recording are one step,
// so concurrent calls cannot all slip under the limit.
type RateStore interface {
	// TakeRate records a call of l.Action by userID at now unless l.Max
	// calls fall within l.Window before it; then it records nothing and
	// returns how long until the oldest of them leaves the window.
	TakeRate(ctx context.Context, userID string, l RateLimit, now time.Time) (wait time.Duration, err error)
}
