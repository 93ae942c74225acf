package domain

import (
	"context"
	"time"
)

// The interfaces the use cases need from outside the service, implemented
// by internal/adapters and wired by subscriptionsvc.

// LocalProviderName is the provider of `make run` without Stripe keys.
const LocalProviderName = "local"

// Provider is a payment provider (Stripe, or the local one of `make run`).
type Provider interface {
	Name() string
	CreateCheckout(ctx context.Context, o Order, idempotencyKey string) (CheckoutSession, error)
	// ParseEvent verifies a webhook's signature and reads its event.
	ParseEvent(payload []byte, signature string) (Event, error)
	// SetCancelAtPeriodEnd stops (true) or restores (false) a card
	// subscription's renewal at the end of its period.
	SetCancelAtPeriodEnd(ctx context.Context, subscriptionID string, cancel bool) error
	// CancelNow ends a card subscription at once (an upgrade replaced it).
	CancelNow(ctx context.Context, subscriptionID string) error
}

// Store is the subscription schema.
type Store interface {
	Tiers(ctx context.Context) ([]Tier, error)
	Subscription(ctx context.Context, userID string) (Subscription, bool, error)
	// Subscriptions returns the subscriptions of those users that have one.
	Subscriptions(ctx context.Context, userIDs []string) (map[string]Subscription, error)
	Consume(ctx context.Context, userID, kind string, windows []Window, amount int) (QuotaResult, error)
	Usage(ctx context.Context, userID string, day, month time.Time) (map[string]int, error)

	CheckoutByKey(ctx context.Context, key string) (Checkout, bool, error)
	// CheckoutAttempt counts a checkout the user starts at now unless limit
	// were started in the window before; then nothing is counted and wait
	// is how long until one more may start. Atomic per user.
	CheckoutAttempt(ctx context.Context, userID string, now time.Time, window time.Duration, limit int) (wait time.Duration, err error)
	Checkout(ctx context.Context, id string) (Checkout, bool, error)
	SaveCheckout(ctx context.Context, c Checkout, key string) (Checkout, error)
	Payments(ctx context.Context, userID string) ([]Payment, error)
	Fulfil(ctx context.Context, ev Event, now time.Time, decide func(FulfilState) Change, receiptMail func(Receipt) Mail) (bool, Change, error)
	BillingProfile(ctx context.Context, userID string) (Party, bool, error)
	SaveBillingProfile(ctx context.Context, userID string, p Party, now time.Time) error
	Receipt(ctx context.Context, userID, number string) (Receipt, bool, error)
	// ReissueReceipt issues, once, the replacement tax invoice of the user's
	// receipt number naming buyer (Receipt.CheckReissue), queues its
	// mail, and returns it; the original is not changed.
	ReissueReceipt(ctx context.Context, userID, number string, buyer Party, now time.Time, mail func(Receipt) Mail) (Receipt, error)

	UpdatePlan(ctx context.Context, userID string, now time.Time, change func(Subscription, bool) (Subscription, error)) (Subscription, error)
	// RollPlan moves the user's plan on past its end date as roll decides
	// (moved false: nothing to move), publishing the change.
	RollPlan(ctx context.Context, userID string, now time.Time, roll func(Subscription) (Subscription, bool)) (moved bool, err error)
	EndingBetween(ctx context.Context, from, to time.Time) ([]Subscription, error)
	QueueReminder(ctx context.Context, userID string, end time.Time, kind string, m Mail, now time.Time) (bool, error)
	// EndPlanForDeletion ends a deleted account's plan as end decides
	// (ForDeletion) and queues the provider cancels it returns, in
	// one transaction.
	EndPlanForDeletion(ctx context.Context, userID string, now time.Time,
		end func(Subscription, bool, []string) (Subscription, []ProviderCancel, bool)) error
	// ForgetUser erases a deleted account's personal data: the billing
	// profile, usage counters, the e-mail kept for reminders and receipts,
	// and mail not yet sent. Payments and issued receipts stay (tax law).
	ForgetUser(ctx context.Context, userID string) error
	// EmailChanged moves the address receipts and reminders go to (the
	// plan's, the checkouts', mail not yet sent) to email, once per consumer
	// and event id, unless a later change (at) was applied already; a user
	// whose address was erased keeps none.
	EmailChanged(ctx context.Context, consumer, eventID, userID, email string, at time.Time) error
	// LatestEmail is the address of the user's latest e-mail change applied
	// and its time; ok is false when none is known.
	LatestEmail(ctx context.Context, userID string) (email string, at time.Time, ok bool, err error)
}

// Mailer sends one e-mail.
type Mailer interface {
	Send(ctx context.Context, m Mail) error
}
