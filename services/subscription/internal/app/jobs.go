package app

import (
	"context"
	"errors"
	"time"

	"bidradar/pkg/mail"
	"bidradar/pkg/queue"
	"bidradar/services/subscription/internal/domain"
)

// cancelCallTimeout bounds one provider call (the queue's lease is longer,
// so no other worker calls while one still may).
const cancelCallTimeout = 30 * time.Second

// MailPolicy: receipts and reminders are not urgent; a failed send waits
// 1 min, 2 min, 4 min … (at most 2 h), ten attempts in all.
var MailPolicy = mail.Policy{
	MaxAttempts: 10,
	Backoff:     func(attempts int) time.Duration { return time.Duration(1<<min(attempts, 8)) * 30 * time.Second },
	Lease:       time.Minute,
}

// Jobs are the kinds of the service's queued work, for its queue worker
// (pkg/queue; safe on every replica): plans moved on past their end date,
// card subscriptions stopped at the provider (when payments are on) and
// mail (when a mailer is set; otherwise it waits).
func (a *App) Jobs() []queue.Kind {
	kinds := []queue.Kind{{Name: domain.JobPlanEnd, Handle: a.rollPlan, Backoff: queue.Exponential(time.Minute, time.Hour)}}
	if a.provider != nil {
		for _, name := range []string{domain.JobCancelNow, domain.JobCancelAtPeriodEnd} {
			kinds = append(kinds, queue.Kind{Name: name, Handle: a.stopCard, Timeout: cancelCallTimeout,
				Backoff: domain.CancelRetryAfter}) // never given up
		}
	}
	if a.mailer != nil {
		kinds = append(kinds, mail.Kind(MailPolicy, mail.SenderFunc(func(ctx context.Context, m mail.Message) error {
			return a.mailer.Send(ctx, domain.Mail{To: m.To, Subject: m.Subject, Text: m.Text, HTML: m.HTML})
		})))
	}
	return kinds
}

// rollPlan is the plan-end job of a user (its key): the plan's end date has
// passed, so it moves on (domain.Roll: to the downgrade waiting after it,
// or expired). A plan renewed or changed meanwhile has its job moved with
// it; a run that finds nothing to move is done.
func (a *App) rollPlan(ctx context.Context, j queue.Attempt) error {
	now := a.now()
	moved, err := a.store.RollPlan(ctx, j.Key, now, func(s domain.Subscription) (domain.Subscription, bool) { return domain.Roll(s, now) })
	if moved {
		a.log.InfoContext(ctx, "plan moved past its end date", "user", j.Key)
	}
	return err
}

// stopCard stops a card subscription that a newer plan replaced (or whose
// account was deleted) at the provider: the job's key is the provider's
// subscription id, its kind whether now or at the period's end. A failure
// backs off (domain.CancelRetryAfter) and is retried for ever, logged at
// error with its attempt count, as an alert from CancelAlarmAttempts on.
func (a *App) stopCard(ctx context.Context, j queue.Attempt) error {
	atEnd := j.Kind == domain.JobCancelAtPeriodEnd
	var err error
	if atEnd {
		err = a.provider.SetCancelAtPeriodEnd(ctx, j.Key, true)
	} else {
		err = a.provider.CancelNow(ctx, j.Key)
	}
	args := []any{"subscription", j.Key, "at_period_end", atEnd, "attempts", j.Attempts}
	switch {
	case err == nil:
		if j.Attempts > 1 {
			a.log.InfoContext(ctx, "card subscription stopped at the provider after retries", args...)
		}
		return nil
	case errors.Is(err, domain.ErrProviderSubGone):
		// Cancelled already (by an earlier attempt whose answer was lost,
		// or at the provider's dashboard): nothing charges any more.
		a.log.InfoContext(ctx, "card subscription already stopped at the provider", append(args, "answer", err)...)
		return nil
	}
	args = append(args, "retry_at", a.now().Add(domain.CancelRetryAfter(j.Attempts)), "err", err)
	if j.Attempts >= domain.CancelAlarmAttempts {
		a.log.ErrorContext(ctx, "ALERT: card subscription still not stopped at the provider (replaced by a new plan, or its account deleted); "+
			"the customer may be charged again: stop it at the provider by hand (retries continue)", append(args, "alert", true)...)
	} else {
		a.log.ErrorContext(ctx, "card subscription not stopped at the provider; retrying", args...)
	}
	return err
}
