package app

import (
	"context"
	"errors"
	"time"

	"bidradar/services/subscription/internal/domain"
)

// A provider call gets cancelCallTimeout; a claimed row is leased for
// longer, so no other worker calls while one still may.
const (
	cancelCallTimeout = 30 * time.Second
	cancelLease       = 2 * time.Minute
)

// StopReplacedCards is the provider-cancel job: it stops up to limit card
// subscriptions that newer plans replaced and the provider has not yet
// confirmed stopping, and returns how many it tried. A failure backs off
// (domain.CancelRetryAfter) and is retried for ever, logged at error with
// its attempt count. Safe on every replica at once (rows are leased).
func (a *App) StopReplacedCards(ctx context.Context, limit int) (int, error) {
	if a.provider == nil {
		return 0, nil
	}
	return a.stopReplaced(ctx, limit, "")
}

// stopReplaced claims due provider cancels (only that subscription's, when
// set), asks the provider and records each outcome.
func (a *App) stopReplaced(ctx context.Context, limit int, only string) (int, error) {
	due, err := a.store.ClaimProviderCancels(ctx, a.now(), cancelLease, limit, only)
	if err != nil {
		return 0, err
	}
	for i, pc := range due {
		if err := a.stopOne(ctx, pc); err != nil {
			return i + 1, err
		}
	}
	return len(due), nil
}

func (a *App) stopOne(ctx context.Context, pc domain.PendingCancel) error {
	call, cancel := context.WithTimeout(ctx, cancelCallTimeout)
	var err error
	if pc.AtPeriodEnd {
		err = a.provider.SetCancelAtPeriodEnd(call, pc.SubscriptionID, true)
	} else {
		err = a.provider.CancelNow(call, pc.SubscriptionID)
	}
	cancel()
	now := a.now()
	args := []any{"subscription", pc.SubscriptionID, "at_period_end", pc.AtPeriodEnd, "attempts", pc.Attempts}
	switch {
	case err == nil:
		if pc.Attempts > 1 {
			a.log.InfoContext(ctx, "card subscription stopped at the provider after retries", args...)
		}
		return a.store.ProviderCancelDone(ctx, pc, now)
	case errors.Is(err, domain.ErrProviderSubGone):
		// Cancelled already (by an earlier attempt whose answer was lost,
		// or at the provider's dashboard): nothing charges any more.
		a.log.InfoContext(ctx, "card subscription already stopped at the provider", append(args, "answer", err)...)
		return a.store.ProviderCancelDone(ctx, pc, now)
	}
	retryAt := now.Add(domain.CancelRetryAfter(pc.Attempts))
	args = append(args, "retry_at", retryAt, "err", err)
	if pc.Attempts >= domain.CancelAlarmAttempts {
		a.log.ErrorContext(ctx, "ALERT: card subscription still not stopped at the provider (replaced by a new plan, or its account deleted); "+
			"the customer may be charged again: stop it at the provider by hand (retries continue)", append(args, "alert", true)...)
	} else {
		a.log.ErrorContext(ctx, "card subscription not stopped at the provider; retrying", args...)
	}
	return a.store.ProviderCancelFailed(ctx, pc, retryAt, err.Error())
}
