package app

import (
	"context"
	"errors"
	"time"

	"bidradar/services/subscription/internal/domain"
)

// WithMail sets where queued mail goes and the app's origin for links.
func (a *App) WithMail(m domain.Mailer, publicURL string) *App {
	a.mailer, a.publicURL = m, publicURL
	return a
}

// Cancel stops the plan's renewal at the end of its paid period. A card
// subscription at the provider is told first (cancel_at_period_end); the
// plan keeps its tier to the end date.
func (a *App) Cancel(ctx context.Context, userID string) (domain.Subscription, error) {
	return a.setCancel(ctx, userID, true)
}

// Resume undoes Cancel before the end date.
func (a *App) Resume(ctx context.Context, userID string) (domain.Subscription, error) {
	return a.setCancel(ctx, userID, false)
}

func (a *App) setCancel(ctx context.Context, userID string, cancel bool) (domain.Subscription, error) {
	check := domain.CanResume
	if cancel {
		check = domain.CanCancel
	}
	p, err := a.Current(ctx, userID)
	if err != nil {
		return domain.Subscription{}, err
	}
	now := a.now()
	if err := check(p.Sub, p.Found, now); err != nil {
		return domain.Subscription{}, err
	}
	// ended: the provider has no running subscription for this plan any
	// more (cancelled there, and its webhook not here yet): nothing renews.
	// A cancel has then nothing left to do but say so; a resume cannot be
	// done. Either way the plan records that it will not renew.
	told, ended := p.Sub.ProviderSubscriptionID, false
	if told != "" {
		if a.provider == nil {
			return domain.Subscription{}, domain.ErrNoProvider
		}
		if err := a.provider.SetCancelAtPeriodEnd(ctx, told, cancel); errors.Is(err, domain.ErrProviderSubGone) {
			a.log.WarnContext(ctx, "the provider's subscription has ended already", "user", userID, "subscription", told)
			ended = true
		} else if err != nil {
			return domain.Subscription{}, err
		}
	}
	s, err := a.store.UpdatePlan(ctx, userID, now, func(s domain.Subscription, found bool) (domain.Subscription, error) {
		s, _ = domain.Roll(s, now)
		if s.ProviderSubscriptionID != told {
			return s, domain.ErrPlanChanged // the provider was told of another subscription
		}
		if ended {
			// Kept as the plan's subscription: its deletion webhook, when
			// it comes, still applies.
			s.ProviderEndedID, s.CancelAtPeriodEnd = told, true
			return s, nil
		}
		if err := check(s, found, now); err != nil {
			return s, err
		}
		s.CancelAtPeriodEnd = cancel
		return s, nil
	})
	if err == nil && ended && !cancel {
		return domain.Subscription{}, domain.ErrResumeProviderEnded
	}
	return s, err
}

// SendReminders queues the Thai reminders due today (7 days and 1 day
// before a plan that does not renew ends), each once per plan end.
func (a *App) SendReminders(ctx context.Context) (int, error) {
	now := a.now()
	today := domain.DayOf(now)
	subs, err := a.store.EndingBetween(ctx, today, today.AddDate(0, 0, 7))
	if err != nil {
		return 0, err
	}
	tiers, err := a.store.Tiers(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, s := range subs {
		kind, ok := domain.ReminderDue(s, now)
		if !ok {
			continue
		}
		m := domain.ReminderMail(s.Email, TierByName(tiers, s.Tier).Label, kind, *s.EndDate, a.publicURL)
		queued, err := a.store.QueueReminder(ctx, s.UserID, *s.EndDate, kind, m, now)
		if err != nil {
			return n, err
		}
		if queued {
			n++
		}
	}
	return n, nil
}

// ForgetUser handles an account deletion (auth.v1.user.deactivated). First
// every card subscription that could still charge the user is cancelled at
// the provider now (domain.ForDeletion; no refund of the days left) and
// the plan ends today: the cancels are queued with the plan's end, tried
// at once by the queue's worker and retried until the provider confirms,
// so an outage at the provider neither keeps charging a deleted account
// nor holds the deletion up. Then the personal
// data goes. Payments and issued receipts stay, as the Revenue Code
// requires. Run again, it finds nothing left to do.
func (a *App) ForgetUser(ctx context.Context, userID string) error {
	now := a.now()
	err := a.store.EndPlanForDeletion(ctx, userID, now, func(s domain.Subscription, found bool, running []string) (domain.Subscription, []domain.ProviderCancel, bool) {
		return domain.ForDeletion(s, found, running, now)
	})
	if err != nil {
		return err
	}
	return a.store.ForgetUser(ctx, userID)
}

// ConsumerEmails is the consumer name of auth.v1.user.email_changed
// (processed_events.consumer).
const ConsumerEmails = "subscription-emails"

// AccountEmail is the address a checkout records for receipts: the access
// token's (issued at issued), unless the account changed its address
// after the token was issued (auth.v1.user.email_changed, applied here).
func (a *App) AccountEmail(ctx context.Context, userID, tokenEmail string, issued time.Time) (string, error) {
	email, at, ok, err := a.store.LatestEmail(ctx, userID)
	if err != nil || !ok || !at.After(issued) {
		return tokenEmail, err
	}
	return email, nil
}

// EmailChanged handles auth.v1.user.email_changed: payment reminders and
// receipts go to the user's new address from now on, not to the one
// captured at checkout. Idempotent on the event id; the latest change wins
// whatever the arrival order.
func (a *App) EmailChanged(ctx context.Context, eventID, userID, email string, at time.Time) error {
	return a.store.EmailChanged(ctx, ConsumerEmails, eventID, userID, email, at)
}
