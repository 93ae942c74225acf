// Package stripepay is the Stripe payment provider: Checkout Sessions
// through stripe-go, and webhook events verified with the endpoint secret and
// reduced to domain.Event. Fulfilment needs nothing else from Stripe.
package stripepay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/stripe/stripe-go/v82"
	"github.com/stripe/stripe-go/v82/webhook"

	"bidradar/pkg/apperr"
	"bidradar/services/subscription/internal/domain"
)

// Tolerance is how far a signature's timestamp may be from now: older is
// a replay, newer a signature made for later.
const Tolerance = 300 * time.Second

// Provider implements domain.Provider with Stripe.
type Provider struct {
	client        *stripe.Client
	webhookSecret string
	publicURL     string
	now           func() time.Time
}

// New returns the provider. apiBase (STRIPE_API_BASE) points the client at
// stripe-mock in tests; empty means Stripe itself. publicURL is the app's
// origin for the success and cancel pages.
func New(secretKey, webhookSecret, apiBase, publicURL string) *Provider {
	var opts []stripe.ClientOption
	if apiBase != "" {
		opts = append(opts, stripe.WithBackends(stripe.NewBackendsWithConfig(&stripe.BackendConfig{
			URL: stripe.String(apiBase), MaxNetworkRetries: stripe.Int64(2),
		})))
	}
	return &Provider{client: stripe.NewClient(secretKey, opts...), webhookSecret: webhookSecret, publicURL: publicURL, now: time.Now}
}

// WithClock sets the clock signatures' timestamps are checked against.
func (p *Provider) WithClock(now func() time.Time) *Provider {
	p.now = now
	return p
}

// Name implements domain.Provider.
func (p *Provider) Name() string { return "stripe" }

// CreateCheckout implements domain.Provider: card → a monthly or yearly
// subscription that renews; PromptPay → a one-time payment for a pass.
func (p *Provider) CreateCheckout(ctx context.Context, o domain.Order, idempotencyKey string) (domain.CheckoutSession, error) {
	meta := map[string]string{"tier": o.Tier.Name, "period": o.Period, "method": o.Method, "user_id": o.UserID}
	price := &stripe.CheckoutSessionCreateLineItemPriceDataParams{
		Currency:   stripe.String("thb"),
		UnitAmount: stripe.Int64(o.AmountSatang()),
		ProductData: &stripe.CheckoutSessionCreateLineItemPriceDataProductDataParams{
			Name: stripe.String("BidRadar " + o.Tier.Label),
		},
	}
	params := &stripe.CheckoutSessionCreateParams{
		ClientReferenceID: stripe.String(o.UserID),
		SuccessURL:        stripe.String(p.publicURL + "/payment/tier/success?session_id={CHECKOUT_SESSION_ID}"),
		CancelURL:         stripe.String(p.publicURL + "/payment"),
		LineItems:         []*stripe.CheckoutSessionCreateLineItemParams{{PriceData: price, Quantity: stripe.Int64(1)}},
		Metadata:          meta,
	}
	if o.Email != "" {
		params.CustomerEmail = stripe.String(o.Email)
	}
	if o.Method == domain.MethodCard {
		interval := "month"
		if o.Period == domain.PeriodYearly {
			interval = "year"
		}
		price.Recurring = &stripe.CheckoutSessionCreateLineItemPriceDataRecurringParams{Interval: stripe.String(interval)}
		params.Mode = stripe.String(string(stripe.CheckoutSessionModeSubscription))
		params.PaymentMethodTypes = []*string{stripe.String("card")}
		params.SubscriptionData = &stripe.CheckoutSessionCreateSubscriptionDataParams{Metadata: meta}
	} else {
		params.Mode = stripe.String(string(stripe.CheckoutSessionModePayment))
		params.PaymentMethodTypes = []*string{stripe.String("promptpay")}
	}
	params.SetIdempotencyKey(idempotencyKey)
	s, err := p.client.V1CheckoutSessions.Create(ctx, params)
	if err != nil {
		return domain.CheckoutSession{}, apperr.Wrap(err, apperr.Unavailable, domain.ErrNoProvider.Slug, domain.ErrNoProvider.Message)
	}
	return domain.CheckoutSession{ID: s.ID, URL: s.URL, Provider: p.Name()}, nil
}

// ParseEvent implements domain.Provider: the signature over the raw body is
// checked, its timestamp within Tolerance of now either way, before
// anything is read.
func (p *Provider) ParseEvent(payload []byte, signature string) (domain.Event, error) {
	// The timestamp is checked here, against the service's clock, both
	// ways: stripe-go refuses an old one only, and one in the future would
	// let a signature leaked today be replayed until then.
	if at, ok := signedAt(signature); !ok || at.Sub(p.now()) > Tolerance || p.now().Sub(at) > Tolerance {
		return domain.Event{}, domain.ErrBadSignature
	}
	ev, err := webhook.ConstructEventWithOptions(payload, signature, p.webhookSecret,
		webhook.ConstructEventOptions{IgnoreTolerance: true, IgnoreAPIVersionMismatch: true})
	if err != nil {
		return domain.Event{}, domain.ErrBadSignature
	}
	out := domain.Event{ID: ev.ID, Type: string(ev.Type), Created: time.Unix(ev.Created, 0).UTC()}
	if ev.ID == "" || ev.Data == nil {
		return out, domain.ErrBadEvent
	}
	raw := ev.Data.Raw
	switch out.Type {
	case domain.EvCheckoutCompleted, domain.EvAsyncPaymentSucceeded, domain.EvAsyncPaymentFailed:
		var s stripe.CheckoutSession
		if err := json.Unmarshal(raw, &s); err != nil {
			return out, domain.ErrBadEvent
		}
		out.SessionID, out.UserID = s.ID, s.ClientReferenceID
		out.Tier, out.Period, out.Method = s.Metadata["tier"], s.Metadata["period"], s.Metadata["method"]
		out.Paid = s.PaymentStatus == stripe.CheckoutSessionPaymentStatusPaid
		out.AmountSatang = s.AmountTotal
		if s.Subscription != nil {
			out.SubscriptionID = s.Subscription.ID
		}
	case domain.EvInvoicePaid, domain.EvInvoicePaymentFailed:
		var in stripe.Invoice
		if err := json.Unmarshal(raw, &in); err != nil {
			return out, domain.ErrBadEvent
		}
		out.InvoiceID, out.AmountSatang = in.ID, in.AmountPaid
		out.Renewal = in.BillingReason == stripe.InvoiceBillingReasonSubscriptionCycle
		if in.Parent != nil && in.Parent.SubscriptionDetails != nil {
			d := in.Parent.SubscriptionDetails
			if d.Subscription != nil {
				out.SubscriptionID = d.Subscription.ID
			}
			out.UserID, out.Tier, out.Period = d.Metadata["user_id"], d.Metadata["tier"], d.Metadata["period"]
			out.Method = domain.MethodCard
		}
		if in.Lines != nil && len(in.Lines.Data) > 0 && in.Lines.Data[0].Period != nil {
			out.PeriodEnd = time.Unix(in.Lines.Data[0].Period.End, 0).UTC()
		}
	case domain.EvSubscriptionUpdated, domain.EvSubscriptionDeleted:
		var s stripe.Subscription
		if err := json.Unmarshal(raw, &s); err != nil {
			return out, domain.ErrBadEvent
		}
		out.SubscriptionID, out.CancelAtPeriodEnd = s.ID, s.CancelAtPeriodEnd
		out.UserID, out.Tier, out.Period = s.Metadata["user_id"], s.Metadata["tier"], s.Metadata["period"]
		if s.Items != nil && len(s.Items.Data) > 0 && s.Items.Data[0].CurrentPeriodEnd > 0 {
			out.PeriodEnd = time.Unix(s.Items.Data[0].CurrentPeriodEnd, 0).UTC()
		}
	default:
		return out, domain.ErrUnknownEvent
	}
	return out, nil
}

// signedAt reads the t= timestamp of a Stripe-Signature header
// ("t=1495999758,v1=…"), the last one as stripe-go does.
func signedAt(header string) (time.Time, bool) {
	var at time.Time
	ok := false
	for _, pair := range strings.Split(header, ",") {
		k, v, found := strings.Cut(pair, "=")
		if !found || k != "t" {
			continue
		}
		secs, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return time.Time{}, false
		}
		at, ok = time.Unix(secs, 0), true
	}
	return at, ok
}

// SetCancelAtPeriodEnd implements domain.Provider (Subscriptions update:
// cancel_at_period_end). A subscription cancelled already (Stripe refuses to
// update it) or unknown answers an error wrapping domain.ErrProviderSubGone.
func (p *Provider) SetCancelAtPeriodEnd(ctx context.Context, subscriptionID string, cancel bool) error {
	_, err := p.client.V1Subscriptions.Update(ctx, subscriptionID, &stripe.SubscriptionUpdateParams{CancelAtPeriodEnd: stripe.Bool(cancel)})
	return p.failure(ctx, subscriptionID, err)
}

// CancelNow implements domain.Provider (Subscriptions cancel, no proration:
// the unused days became days of the new plan). A subscription cancelled
// already (Stripe answers resource_missing, "No such subscription") or
// unknown answers an error wrapping domain.ErrProviderSubGone.
func (p *Provider) CancelNow(ctx context.Context, subscriptionID string) error {
	_, err := p.client.V1Subscriptions.Cancel(ctx, subscriptionID, &stripe.SubscriptionCancelParams{Prorate: stripe.Bool(false)})
	return p.failure(ctx, subscriptionID, err)
}

// failure maps a subscription call's error: domain.ErrProviderSubGone
// (inside the usual Unavailable error) when the subscription can no longer
// charge, so a retried stop counts as done.
func (p *Provider) failure(ctx context.Context, subscriptionID string, err error) error {
	if err == nil {
		return nil
	}
	if p.gone(ctx, subscriptionID, err) {
		err = fmt.Errorf("%w: %w", domain.ErrProviderSubGone, err)
	}
	return apperr.Wrap(err, apperr.Unavailable, domain.ErrNoProvider.Slug, domain.ErrNoProvider.Message)
}

// gone: Stripe answers resource_missing for a subscription it does not have
// (cancelling a cancelled one answers so too) and a plain 400 to an update
// of a cancelled one; for the latter the subscription is read to be sure.
// Network failures, 5xx and 429 are not gone: they are retried.
func (p *Provider) gone(ctx context.Context, subscriptionID string, err error) bool {
	var se *stripe.Error
	if !errors.As(err, &se) {
		return false
	}
	if se.Code == stripe.ErrorCodeResourceMissing {
		return true
	}
	if se.HTTPStatusCode != http.StatusBadRequest {
		return false
	}
	s, err := p.client.V1Subscriptions.Retrieve(ctx, subscriptionID, nil)
	return err == nil && (s.Status == stripe.SubscriptionStatusCanceled || s.Status == stripe.SubscriptionStatusIncompleteExpired)
}
