package domain

import (
	"fmt"
	"time"
)

// ProviderSub is the latest known state of a provider's recurring
// subscription, as of the event that set it.
type ProviderSub struct {
	ID, UserID        string
	Status            string // active or deleted
	CancelAtPeriodEnd bool
	StateAt           time.Time
}

// PaymentRecord is a payment to record.
type PaymentRecord struct {
	UserID, Tier, Period, Method string
	AmountSatang                 int64
	Succeeded                    bool
	ProviderRef                  string // checkout session or invoice id
	TierLabel                    string // for the receipt
	Email                        string // where the receipt goes
	// Buyer chosen at checkout; not Fixed: the billing profile at payment.
	Buyer BuyerChoice
}

// FulfilState is what fulfilment reads, locked, before deciding.
type FulfilState struct {
	Sub         Subscription
	Found       bool
	ProviderSub *ProviderSub // the event's provider subscription, when known
	Tiers       map[string]Tier
	Email       string    // the checkout's e-mail, when the event is a checkout's
	Checkout    *Checkout // the event's checkout session, when it is one of ours
	// RefPaid: a payment of the event's checkout session or invoice has
	// succeeded already (another event for the same payment came first).
	RefPaid bool
	// Forgotten: the user deleted their account (ForgetUser ran).
	Forgotten bool
}

// ProviderCancel asks the provider to stop an older card subscription the
// new plan replaces: now for an upgrade, at its period's end for a downgrade.
type ProviderCancel struct {
	SubscriptionID string
	AtPeriodEnd    bool
}

// Change is what an event changes; nil parts change nothing.
type Change struct {
	Sub            *Subscription
	ProviderSub    *ProviderSub
	Payment        *PaymentRecord
	CheckoutID     string
	CheckoutStatus string // paid or failed
	Reason         string // why nothing changed, for the log
	Alert          bool   // Reason needs a person (money taken, nothing granted)
	Grant          GrantKind
	ProviderCancel *ProviderCancel
}

// Decide applies one verified provider event to the state. It is the whole
// fulfilment rule, pure so every order of events can be tested:
//   - a paid checkout (or a PromptPay payment that succeeds later) grants the
//     tier through Grant and records the payment; an unpaid one waits;
//   - a renewal invoice extends the plan to the paid period's end;
//   - failures are recorded and change no plan;
//   - subscription updates and deletions apply only when newer than the
//     state they would change, so a completed checkout that arrives after its
//     subscription was deleted grants nothing.
func Decide(ev Event, st FulfilState, now time.Time) Change {
	c := decide(ev, st, now)
	if p := c.Payment; p != nil {
		// What the receipt needs: the plan's name, who it names and where
		// to mail it.
		p.TierLabel = st.Tiers[p.Tier].Label
		if co := st.Checkout; co != nil && p.ProviderRef == co.SessionID {
			p.Buyer = co.BuyerChoice
		}
		switch {
		case c.Sub != nil && c.Sub.Email != "":
			p.Email = c.Sub.Email
		case st.Email != "":
			p.Email = st.Email
		default:
			p.Email = st.Sub.Email
		}
	}
	return c
}

func decide(ev Event, st FulfilState, now time.Time) Change {
	if st.Forgotten {
		if c, ok := paidAfterDeletion(ev, st); ok {
			return c
		}
	}
	switch ev.Type {
	case EvCheckoutCompleted, EvAsyncPaymentSucceeded:
		return decideCheckoutPaid(ev, st, now)
	case EvAsyncPaymentFailed:
		return Change{CheckoutID: ev.SessionID, CheckoutStatus: "failed",
			Payment: &PaymentRecord{UserID: ev.UserID, Tier: ev.Tier, Period: ev.Period, Method: ev.Method,
				AmountSatang: ev.AmountSatang, ProviderRef: ev.SessionID}}
	case EvInvoicePaid:
		return decideRenewal(ev, st, now)
	case EvInvoicePaymentFailed:
		if !st.Found {
			return Change{Reason: "no plan"}
		}
		return Change{Payment: &PaymentRecord{UserID: st.Sub.UserID, Tier: st.Sub.Tier, Period: st.Sub.Period,
			Method: MethodCard, AmountSatang: ev.AmountSatang, ProviderRef: ev.InvoiceID}}
	case EvSubscriptionUpdated, EvSubscriptionDeleted:
		return decideSubscriptionChange(ev, st, now)
	}
	return Change{Reason: "event type not handled"}
}

// decideCheckoutPaid grants the plan of a paid checkout, once per session.
func decideCheckoutPaid(ev Event, st FulfilState, now time.Time) Change {
	if ev.Type == EvCheckoutCompleted && !ev.Paid {
		return Change{Reason: "checkout completed unpaid: waiting for the asynchronous payment"}
	}
	// One session pays once: a second event for it (another event id:
	// completed then async_payment_succeeded, or a resend) grants nothing.
	if st.RefPaid {
		return Change{Reason: "checkout session already fulfilled"}
	}
	if ps := st.ProviderSub; ps != nil && ps.Status == "deleted" {
		return Change{Reason: "its subscription was already deleted", CheckoutID: ev.SessionID, CheckoutStatus: "failed"}
	}
	t, ok := st.Tiers[ev.Tier]
	if !ok || t.PriceMonthSatang <= 0 || (ev.Period != PeriodMonthly && ev.Period != PeriodYearly) {
		return Change{Reason: "event names no sellable tier and period"}
	}
	if refusal := checkPaid(ev, t, st.Checkout); refusal != "" {
		return Change{Reason: refusal, Alert: true}
	}
	return grant(ev, st, now)
}

// decideRenewal extends the plan (or the plan waiting after it) that a
// renewal invoice paid for to the paid period's end.
func decideRenewal(ev Event, st FulfilState, now time.Time) Change {
	if !ev.Renewal {
		return Change{Reason: "first invoice: the checkout grants the plan"}
	}
	if st.RefPaid {
		return Change{Reason: "invoice already paid"}
	}
	if ps := st.ProviderSub; ps != nil && ps.Status == "deleted" {
		return Change{Reason: "renewal of a deleted subscription"}
	}
	if st.Found && st.Sub.Next != nil && st.Sub.Next.ProviderSubscriptionID == ev.SubscriptionID {
		// The waiting plan's card renewed: its days follow on.
		sub, next := st.Sub, *st.Sub.Next
		next.EndDate = next.EndDate.AddDate(0, 0, Days(next.Period))
		paidOn, amount := DayOf(now), ev.AmountSatang
		sub.Next, sub.LastPaymentDate, sub.LastPaymentSatang = &next, &paidOn, &amount
		return Change{Sub: &sub, Payment: &PaymentRecord{UserID: sub.UserID, Tier: next.Tier, Period: next.Period,
			Method: MethodCard, AmountSatang: amount, Succeeded: true, ProviderRef: ev.InvoiceID}}
	}
	if !st.Found || st.Sub.ProviderSubscriptionID != ev.SubscriptionID || ev.PeriodEnd.IsZero() {
		return Change{Reason: "renewal of a subscription that is not the user's plan"}
	}
	sub := st.Sub
	end := DayOf(ev.PeriodEnd)
	if sub.EndDate != nil && sub.EndDate.After(end) {
		end = *sub.EndDate
	}
	paidOn, amount := DayOf(now), ev.AmountSatang
	sub.EndDate, sub.Status, sub.LastPaymentDate, sub.LastPaymentSatang = &end, "active", &paidOn, &amount
	return Change{Sub: &sub, Payment: &PaymentRecord{UserID: sub.UserID, Tier: sub.Tier, Period: sub.Period,
		Method: MethodCard, AmountSatang: amount, Succeeded: true, ProviderRef: ev.InvoiceID}}
}

// decideSubscriptionChange applies an update or deletion of a card
// subscription when it is newer than the state it would change; a deleted
// plan ends today (or when it already ends, if sooner).
func decideSubscriptionChange(ev Event, st FulfilState, now time.Time) Change {
	ps := st.ProviderSub
	if ps != nil && ev.Created.Before(ps.StateAt) {
		return Change{Reason: "older than the subscription's known state"}
	}
	if ps != nil && ps.Status == "deleted" {
		return Change{Reason: "subscription already deleted"}
	}
	user := ev.UserID
	if ps != nil {
		user = ps.UserID
	}
	next := &ProviderSub{ID: ev.SubscriptionID, UserID: user, Status: "active", CancelAtPeriodEnd: ev.CancelAtPeriodEnd, StateAt: ev.Created}
	if ev.Type == EvSubscriptionDeleted {
		next.Status, next.CancelAtPeriodEnd = "deleted", false
	}
	c := Change{ProviderSub: next}
	if !st.Found || st.Sub.ProviderSubscriptionID != ev.SubscriptionID {
		return c
	}
	sub := st.Sub
	if ev.Type == EvSubscriptionDeleted {
		today := DayOf(now)
		if sub.EndDate == nil || sub.EndDate.After(today) {
			sub.EndDate = &today
		}
		sub.CancelAtPeriodEnd, sub.ProviderSubscriptionID = false, ""
		if sub.Next == nil { // else the waiting plan starts tomorrow
			sub.Status = "cancelled"
		}
	} else {
		sub.CancelAtPeriodEnd = ev.CancelAtPeriodEnd
	}
	c.Sub = &sub
	return c
}

// paidAfterDeletion handles money taken from an account deleted before it
// (a checkout page left open, a renewal before the cancel reached the
// provider): the payment is recorded with its receipt (tax law), no plan is
// granted, the card subscription it started or renewed is cancelled now,
// and a person is alerted to refund it. ok is false for other events.
func paidAfterDeletion(ev Event, st FulfilState) (Change, bool) {
	var ref string
	switch {
	case (ev.Type == EvCheckoutCompleted && ev.Paid) || ev.Type == EvAsyncPaymentSucceeded:
		if st.RefPaid {
			return Change{Reason: "checkout session already fulfilled"}, true
		}
		ref = ev.SessionID
	case ev.Type == EvInvoicePaid && ev.Renewal:
		if st.RefPaid {
			return Change{Reason: "invoice already paid"}, true
		}
		ref = ev.InvoiceID
	default:
		return Change{}, false
	}
	c := Change{Alert: true, Reason: "paid after the account was deleted: no plan granted, the card subscription is cancelled; refund it by hand",
		Payment: &PaymentRecord{UserID: ev.UserID, Tier: ev.Tier, Period: ev.Period, Method: ev.Method,
			AmountSatang: ev.AmountSatang, Succeeded: true, ProviderRef: ref}}
	if ev.Type != EvInvoicePaid {
		c.CheckoutID, c.CheckoutStatus = ev.SessionID, "paid"
	}
	if ev.SubscriptionID != "" {
		c.ProviderCancel = &ProviderCancel{SubscriptionID: ev.SubscriptionID}
	}
	if p := c.Payment; p.Tier == "" && st.Found { // a renewal names no tier: the plan's
		p.Tier, p.Period, p.Method = st.Sub.Tier, st.Sub.Period, MethodCard
	}
	return c, true
}

// checkPaid is why a paid checkout must not be fulfilled ("" when it may):
// it must be the order its checkout session was opened for, and the amount
// paid that order's price — the checkout's amount when the session is ours
// (the price when it was opened), else the tier's price for the period.
func checkPaid(ev Event, t Tier, c *Checkout) string {
	want := Order{Tier: t, Period: ev.Period}.AmountSatang()
	if c != nil {
		if c.UserID != ev.UserID || c.Tier != ev.Tier || c.Period != ev.Period || c.Method != ev.Method {
			return fmt.Sprintf("the event's order (%s %s %s %s) is not its checkout's (%s %s %s %s): not fulfilled",
				ev.UserID, ev.Tier, ev.Period, ev.Method, c.UserID, c.Tier, c.Period, c.Method)
		}
		want = c.AmountSatang
	}
	if ev.AmountSatang != want {
		return fmt.Sprintf("paid %d satang for %s %s, the price is %d: not fulfilled", ev.AmountSatang, ev.Tier, ev.Period, want)
	}
	return ""
}

// grant applies a paid checkout through the lifecycle rule (GrantFor).
func grant(ev Event, st FulfilState, now time.Time) Change {
	paidOn, amount := DayOf(now), ev.AmountSatang
	c := Change{CheckoutID: ev.SessionID, CheckoutStatus: "paid",
		Payment: &PaymentRecord{UserID: ev.UserID, Tier: ev.Tier, Period: ev.Period, Method: ev.Method,
			AmountSatang: amount, Succeeded: true, ProviderRef: ev.SessionID}}
	if ev.SubscriptionID != "" && st.ProviderSub == nil {
		c.ProviderSub = &ProviderSub{ID: ev.SubscriptionID, UserID: ev.UserID, Status: "active", StateAt: ev.Created}
	}
	cur, old := st.Sub, st.Sub.ProviderSubscriptionID
	var sub Subscription
	if st.Found && cur.Next != nil && cur.Active(now) {
		// A downgrade already waits (checkout refuses this; a race can
		// still get here): the days go to the waiting plan, converted at
		// list prices, and the new card subscription does not renew.
		sub = cur
		next := *cur.Next
		days := Days(ev.Period)
		if next.Tier != ev.Tier {
			days = Credit(days, st.Tiers[ev.Tier].PriceMonthSatang, st.Tiers[next.Tier].PriceMonthSatang)
		}
		next.EndDate = next.EndDate.AddDate(0, 0, days)
		sub.Next, c.Grant = &next, GrantDowngrade
		if ev.SubscriptionID != "" {
			c.ProviderCancel = &ProviderCancel{SubscriptionID: ev.SubscriptionID, AtPeriodEnd: true}
		}
	} else {
		g := GrantFor(cur, st.Found, st.Tiers, ev.Tier, Days(ev.Period), now)
		c.Grant = g.Kind
		if g.Kind == GrantDowngrade {
			sub = cur
			sub.Next = &NextPlan{Tier: ev.Tier, Period: ev.Period, Method: ev.Method, ProviderSubscriptionID: ev.SubscriptionID, EndDate: g.End}
			sub.CancelAtPeriodEnd = sub.CancelAtPeriodEnd || old != ""
		} else {
			end := g.End
			sub = Subscription{UserID: ev.UserID, Tier: ev.Tier, Status: "active", StartDate: g.Start, EndDate: &end,
				Period: ev.Period, Method: ev.Method, ProviderSubscriptionID: ev.SubscriptionID, Email: cur.Email}
		}
		// The old card subscription must not charge again: the new plan
		// replaces it now (upgrade, or a plan that had lapsed) or follows
		// its paid period (extension, downgrade).
		if old != "" && old != ev.SubscriptionID {
			atEnd := g.Kind == GrantExtend || g.Kind == GrantDowngrade
			if !atEnd || !cur.CancelAtPeriodEnd {
				c.ProviderCancel = &ProviderCancel{SubscriptionID: old, AtPeriodEnd: atEnd}
			}
		}
	}
	sub.UserID, sub.LastPaymentDate, sub.LastPaymentSatang = ev.UserID, &paidOn, &amount
	if st.Email != "" {
		sub.Email = st.Email
	}
	c.Sub = &sub
	return c
}
