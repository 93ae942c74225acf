package domain

import (
	"errors"
	"fmt"
	"time"

	"bidradar/pkg/apperr"
)

// Billing periods and payment methods of a checkout.
const (
	PeriodMonthly   = "monthly"
	PeriodYearly    = "yearly"
	MethodCard      = "card"      // an auto-renewing provider subscription
	MethodPromptPay = "promptpay" // a prepaid pass: PromptPay cannot renew
)

// Errors of checkout and fulfilment.
var (
	ErrBadTier      = apperr.New(apperr.InvalidArgument, "checkout-tier", "tier must be one of starter, pro, enterprise")
	ErrBadPeriod    = apperr.New(apperr.InvalidArgument, "checkout-period", "period must be monthly or yearly")
	ErrBadMethod    = apperr.New(apperr.InvalidArgument, "checkout-method", "method must be card or promptpay")
	ErrBadSignature = apperr.New(apperr.InvalidArgument, "webhook-signature", "Invalid or expired webhook signature")
	ErrBadEvent     = apperr.New(apperr.InvalidArgument, "webhook-event", "Malformed webhook event")
	ErrNoCheckout   = apperr.New(apperr.NotFound, "checkout-not-found", "Checkout session not found")
	ErrCheckoutDone = apperr.New(apperr.FailedPrecondition, "checkout-done", "This checkout is already completed")
	ErrNoProvider   = apperr.New(apperr.Unavailable, "payments-unavailable", "Service is currently unavailable. Please try again later.")
	// ErrCheckoutTooMany is the per-account limit on starting checkouts
	// (each opens a session at the provider), sent with its Retry-After.
	ErrCheckoutTooMany = apperr.New(apperr.ResourceExhausted, "checkout-rate-limited", "Too many payments started. Please try again shortly.")
)

// DefaultCheckoutsPerMinute is how many checkouts one account may start in
// a minute (CHECKOUT_PER_MINUTE): far above a person changing their mind,
// far below a script opening sessions at the provider.
const DefaultCheckoutsPerMinute = 10

// Order is what a checkout sells.
type Order struct {
	UserID, Email string
	Tier          Tier
	Period        string
	Method        string
}

// Validate checks the period and method (the tier is resolved before).
func (o Order) Validate() error {
	if o.Tier.PriceMonthSatang <= 0 {
		return ErrBadTier
	}
	if o.Period != PeriodMonthly && o.Period != PeriodYearly {
		return ErrBadPeriod
	}
	if o.Method != MethodCard && o.Method != MethodPromptPay {
		return ErrBadMethod
	}
	return nil
}

// AmountSatang is the order's price: a yearly plan costs 10 months
// (docs/product.md#payments-and-tax-invoices).
func (o Order) AmountSatang() int64 {
	if o.Period == PeriodYearly {
		return o.Tier.PriceYearSatang()
	}
	return o.Tier.PriceMonthSatang
}

// Days is the length of what the order buys: 30 or 365 days.
func Days(period string) int {
	if period == PeriodYearly {
		return 365
	}
	return 30
}

// CheckoutSession is a started payment.
type CheckoutSession struct {
	ID, URL  string
	Provider string
}

// Event is a payment provider's event, already verified, reduced to what
// fulfilment needs (it never calls the provider back).
type Event struct {
	ID      string
	Type    string
	Created time.Time

	UserID            string // client_reference_id, or the subscription's metadata
	Tier, Period      string
	Method            string
	SessionID         string
	Paid              bool  // checkout.session.completed: payment_status == "paid"
	AmountSatang      int64 // what was paid
	SubscriptionID    string
	InvoiceID         string
	Renewal           bool      // invoice.paid for a new cycle (not the first invoice)
	PeriodEnd         time.Time // invoice.paid / subscription.updated: the paid period's end
	CancelAtPeriodEnd bool
}

// Event types fulfilment handles.
const (
	EvCheckoutCompleted     = "checkout.session.completed"
	EvAsyncPaymentSucceeded = "checkout.session.async_payment_succeeded"
	EvAsyncPaymentFailed    = "checkout.session.async_payment_failed"
	EvInvoicePaid           = "invoice.paid"
	EvInvoicePaymentFailed  = "invoice.payment_failed"
	EvSubscriptionUpdated   = "customer.subscription.updated"
	EvSubscriptionDeleted   = "customer.subscription.deleted"
)

// DayOf is t's calendar day in Bangkok (dates of plans are Bangkok days).
func DayOf(t time.Time) time.Time {
	l := t.In(Bangkok)
	return time.Date(l.Year(), l.Month(), l.Day(), 0, 0, 0, 0, time.UTC)
}

// ErrUnknownEvent is an event type fulfilment ignores (acknowledged).
var ErrUnknownEvent = errors.New("event type not handled")

// String is for logs.
func (e Event) String() string { return fmt.Sprintf("%s %s", e.Type, e.ID) }

// Checkout is a stored checkout session.
type Checkout struct {
	SessionID, Provider, UserID, Tier, Period, Method, URL, Status string
	Email                                                          string
	AmountSatang                                                   int64
	CreatedAt                                                      time.Time
	BuyerChoice
}

// BuyerChoice is who a checkout's receipt names, when the payer said: the
// buyer they gave (a tax invoice), or nobody (ReceiptOnly: a receipt to
// the e-mail). Neither: the billing profile when the payment succeeds.
type BuyerChoice struct {
	Buyer       *Party
	ReceiptOnly bool
}

// Fixed reports whether the payer chose (a buyer, or none).
func (b BuyerChoice) Fixed() bool { return b.Buyer != nil || b.ReceiptOnly }

// ErrBuyerAndReceiptOnly: a checkout names a buyer or asks for a plain
// receipt, not both.
var ErrBuyerAndReceiptOnly = apperr.New(apperr.InvalidArgument, "checkout-buyer", "buyer and receipt_only cannot both be set")

// Payment is a stored payment; paid ones carry their receipt number.
type Payment struct {
	ID, Tier, Period, Method, Status, ProviderRef string
	AmountSatang                                  int64
	ReceiptNo                                     *int64
	ReceiptNumber                                 string // RC2569-000001; "" when not paid
	ReplacementNumber                             string // the replacement tax invoice of that receipt, if any
	CreatedAt                                     time.Time
}
