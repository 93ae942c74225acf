// Package app holds the subscription use cases: the plan in force (the one
// "current tier" rule), quotas, checkout and fulfilment of payments.
package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"time"

	"bidradar/pkg/apperr"
	"bidradar/services/subscription/internal/domain"
)

// App is the subscription use cases.
type App struct {
	store    domain.Store
	provider domain.Provider // nil: payments are off
	now      func() time.Time
	log      *slog.Logger

	mailer    domain.Mailer // nil: queued mail waits
	publicURL string

	checkoutLimit int // checkouts an account may start per minute
}

// New returns the use cases; provider may be nil (no payments), now nil (time.Now).
func New(store domain.Store, provider domain.Provider, now func() time.Time, log *slog.Logger) *App {
	if now == nil {
		now = time.Now
	}
	if log == nil {
		log = slog.Default()
	}
	return &App{store: store, provider: provider, now: now, log: log, checkoutLimit: domain.DefaultCheckoutsPerMinute}
}

// WithCheckoutLimit sets how many checkouts an account may start a minute.
func (a *App) WithCheckoutLimit(perMinute int) *App {
	a.checkoutLimit = perMinute
	return a
}

// Now is the service clock.
func (a *App) Now() time.Time { return a.now() }

// Plan is the plan in force for a user.
type Plan struct {
	Tiers []domain.Tier
	Tier  domain.Tier // in force: free without an active subscription
	Sub   domain.Subscription
	Found bool // a subscription row exists (active or not)
}

// Current is THE current-tier rule: the subscribed tier while the
// subscription is active at now, else free. Every reader goes through it.
func (a *App) Current(ctx context.Context, userID string) (Plan, error) {
	tiers, err := a.store.Tiers(ctx)
	if err != nil {
		return Plan{}, err
	}
	p := Plan{Tiers: tiers}
	if userID != "" {
		if p.Sub, p.Found, err = a.store.Subscription(ctx, userID); err != nil {
			return Plan{}, err
		}
	}
	p.Sub, p.Tier = a.inForce(tiers, p.Sub, p.Found)
	return p, nil
}

// inForce applies the current-tier rule to a user's subscription (found:
// the user has one). A plan past its end reads as the expiry job will
// write it.
func (a *App) inForce(tiers []domain.Tier, sub domain.Subscription, found bool) (domain.Subscription, domain.Tier) {
	sub, _ = domain.Roll(sub, a.now())
	name := domain.FreeTier
	if found && sub.Active(a.now()) {
		name = sub.Tier
	}
	return sub, TierByName(tiers, name)
}

// MaxEntitlementUsers bounds one Entitlements call.
const MaxEntitlementUsers = 500

var errTooManyUsers = apperr.New(apperr.InvalidArgument, "too-many-users", "at most 500 user ids")

// Entitlements returns the tier in force for each distinct user, in the
// order given: what the other services enforce (saved searches, alert
// channels, exports) by the same rule as Current.
func (a *App) Entitlements(ctx context.Context, userIDs []string) ([]string, map[string]domain.Tier, error) {
	var users []string
	seen := map[string]bool{}
	for _, u := range userIDs {
		if u != "" && !seen[u] {
			seen[u] = true
			users = append(users, u)
		}
	}
	if len(users) > MaxEntitlementUsers {
		return nil, nil, errTooManyUsers
	}
	tiers, err := a.store.Tiers(ctx)
	if err != nil {
		return nil, nil, err
	}
	subs, err := a.store.Subscriptions(ctx, users)
	if err != nil {
		return nil, nil, err
	}
	out := make(map[string]domain.Tier, len(users))
	for _, u := range users {
		s, found := subs[u]
		_, out[u] = a.inForce(tiers, s, found)
	}
	return users, out, nil
}

// TierByName finds a tier (a zero tier with the name when unknown).
func TierByName(tiers []domain.Tier, name string) domain.Tier {
	for _, t := range tiers {
		if t.Name == name {
			return t
		}
	}
	return domain.Tier{Name: name}
}

// Checkout starts a payment whose receipt names the billing profile as it
// stands when the payment succeeds (CheckoutFor with no choice).
func (a *App) Checkout(ctx context.Context, userID, email, tier, period, method, clientKey string) (domain.CheckoutSession, error) {
	return a.CheckoutFor(ctx, userID, email, tier, period, method, clientKey, domain.BuyerChoice{})
}

// CheckoutFor starts a payment. The idempotency key is derived from the
// user, the order, the buyer and the client's key (the Idempotency-Key
// header, else the minute), so a double click makes one session. A buyer
// given is checked like the billing profile, saved as it (the renewals'
// receipts name it too) and named by this payment's tax invoice; with
// ReceiptOnly the receipt names nobody.
func (a *App) CheckoutFor(ctx context.Context, userID, email, tier, period, method, clientKey string, buyer domain.BuyerChoice) (domain.CheckoutSession, error) {
	if a.provider == nil {
		return domain.CheckoutSession{}, domain.ErrNoProvider
	}
	if buyer.Buyer != nil && buyer.ReceiptOnly {
		return domain.CheckoutSession{}, domain.ErrBuyerAndReceiptOnly
	}
	if buyer.Buyer != nil {
		p, err := domain.NormalizeProfile(*buyer.Buyer)
		if err != nil {
			return domain.CheckoutSession{}, err
		}
		buyer.Buyer = &p
	}
	tiers, err := a.store.Tiers(ctx)
	if err != nil {
		return domain.CheckoutSession{}, err
	}
	o := domain.Order{UserID: userID, Email: email, Tier: TierByName(tiers, tier), Period: period, Method: method}
	if err := o.Validate(); err != nil {
		return domain.CheckoutSession{}, err
	}
	if cur, found, err := a.store.Subscription(ctx, userID); err != nil {
		return domain.CheckoutSession{}, err
	} else if cur, _ = domain.Roll(cur, a.now()); found && cur.Next != nil && cur.Active(a.now()) {
		return domain.CheckoutSession{}, domain.ErrPlanQueued
	}
	if clientKey == "" {
		clientKey = a.now().UTC().Format("2006-01-02T15:04")
	}
	who := fmt.Sprint(buyer.ReceiptOnly)
	if b := buyer.Buyer; b != nil {
		who = fmt.Sprintf("%q", []any{b.Kind, b.Name, b.TaxID, b.HeadOffice, b.Branch, b.Address})
	}
	sum := sha256.Sum256([]byte(userID + "|" + tier + "|" + period + "|" + method + "|" + who + "|" + clientKey))
	key := "checkout-" + hex.EncodeToString(sum[:16])
	if c, ok, err := a.store.CheckoutByKey(ctx, key); err != nil || ok {
		return domain.CheckoutSession{ID: c.SessionID, URL: c.URL, Provider: c.Provider}, err
	}
	// A double click (the same key) is answered above and costs nothing;
	// each new session at the provider counts.
	if wait, err := a.store.CheckoutAttempt(ctx, userID, a.now(), time.Minute, a.checkoutLimit); err != nil {
		return domain.CheckoutSession{}, err
	} else if wait > 0 {
		return domain.CheckoutSession{}, apperr.RetryAfter(domain.ErrCheckoutTooMany, wait)
	}
	if buyer.Buyer != nil {
		if err := a.store.SaveBillingProfile(ctx, userID, *buyer.Buyer, a.now()); err != nil {
			return domain.CheckoutSession{}, err
		}
	}
	s, err := a.provider.CreateCheckout(ctx, o, key)
	if err != nil {
		return domain.CheckoutSession{}, err
	}
	saved, err := a.store.SaveCheckout(ctx, domain.Checkout{SessionID: s.ID, Provider: s.Provider, UserID: userID,
		Tier: tier, Period: period, Method: method, URL: s.URL, Email: email, AmountSatang: o.AmountSatang(), CreatedAt: a.now(),
		BuyerChoice: buyer}, key)
	if err != nil {
		return domain.CheckoutSession{}, err
	}
	return domain.CheckoutSession{ID: saved.SessionID, URL: saved.URL, Provider: saved.Provider}, nil
}

// Webhook verifies and applies one provider event. A replay or an event
// type we do not handle is acknowledged and changes nothing.
func (a *App) Webhook(ctx context.Context, payload []byte, signature string) error {
	if a.provider == nil {
		return domain.ErrNoProvider
	}
	ev, err := a.provider.ParseEvent(payload, signature)
	if err == domain.ErrUnknownEvent {
		a.log.InfoContext(ctx, "webhook event ignored", "event", ev.String())
		return nil
	}
	if err != nil {
		return err
	}
	_, err = a.fulfil(ctx, ev)
	return err
}

// fulfil applies ev once; applied is false for an event id seen before.
func (a *App) fulfil(ctx context.Context, ev domain.Event) (applied bool, err error) {
	now := a.now()
	applied, c, err := a.store.Fulfil(ctx, ev, now, func(st domain.FulfilState) domain.Change { return domain.Decide(ev, st, now) },
		func(r domain.Receipt) domain.Mail { return domain.ReceiptMail(r, a.publicURL) })
	if err != nil {
		return false, err
	}
	switch {
	case !applied:
		a.log.InfoContext(ctx, "webhook replay ignored", "event", ev.String())
		return false, nil
	case c.Alert:
		a.log.ErrorContext(ctx, "ALERT: payment event not fulfilled as paid for; check it at the provider (refund or grant by hand)",
			"event", ev.String(), "session", ev.SessionID, "user", ev.UserID, "amount_satang", ev.AmountSatang, "reason", c.Reason, "alert", true)
	case c.Reason != "":
		a.log.InfoContext(ctx, "webhook event changed nothing", "event", ev.String(), "reason", c.Reason)
	}
	// A cancel of the old card (c.ProviderCancel) was queued with the plan:
	// the queue's worker, woken by it, calls the provider at once and
	// retries a failure; the webhook is acknowledged either way.
	return applied, nil
}

// ErrNotLocal: the local completion exists only with the local provider.
var ErrNotLocal = apperr.New(apperr.NotFound, "checkout-not-found", "Checkout session not found")

// LocalCheckout returns the caller's own open local checkout (the page of
// the local provider shows it).
func (a *App) LocalCheckout(ctx context.Context, userID, sessionID string) (domain.Checkout, error) {
	c, ok, err := a.store.Checkout(ctx, sessionID)
	if err != nil {
		return domain.Checkout{}, err
	}
	if !ok || c.UserID != userID || c.Provider != domain.LocalProviderName {
		return domain.Checkout{}, ErrNotLocal
	}
	return c, nil
}

// CompleteLocal finishes a local checkout through the same fulfilment as a
// provider's webhook: paid grants the tier, not paid records a failure.
// Both outcomes are the one event of the session, so of two completions at
// once one applies and the other answers ErrCheckoutDone, as it would after.
func (a *App) CompleteLocal(ctx context.Context, userID, sessionID string, paid bool) (domain.Checkout, error) {
	c, err := a.LocalCheckout(ctx, userID, sessionID)
	if err != nil {
		return c, err
	}
	if c.Status != "open" {
		return c, domain.ErrCheckoutDone
	}
	ev := domain.Event{ID: "local_evt_" + c.SessionID, Type: domain.EvCheckoutCompleted, Created: a.now(), UserID: c.UserID,
		Tier: c.Tier, Period: c.Period, Method: c.Method, SessionID: c.SessionID, Paid: true, AmountSatang: c.AmountSatang}
	if !paid {
		ev.Type, ev.Paid = domain.EvAsyncPaymentFailed, false
	}
	applied, err := a.fulfil(ctx, ev)
	if err != nil {
		return c, err
	}
	if !applied {
		return c, domain.ErrCheckoutDone
	}
	c, _, err = a.store.Checkout(ctx, sessionID)
	return c, err
}
