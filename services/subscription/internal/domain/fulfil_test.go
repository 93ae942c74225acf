package domain_test

import (
	"testing"
	"time"

	"bidradar/services/subscription/internal/domain"
)

var tiers = map[string]domain.Tier{
	"free":       {Name: "free"},
	"starter":    {Name: "starter", Rank: 1, PriceMonthSatang: 49000},
	"pro":        {Name: "pro", Rank: 2, PriceMonthSatang: 149000},
	"enterprise": {Name: "enterprise", Rank: 3, PriceMonthSatang: 499000},
}

var now = time.Date(2026, 11, 25, 10, 0, 0, 0, domain.Bangkok)

func day(s string) time.Time { t, _ := time.Parse(time.DateOnly, s); return t }

func completed(id string, at time.Time, sub string) domain.Event {
	return domain.Event{ID: id, Type: domain.EvCheckoutCompleted, Created: at, UserID: "u1", Tier: "pro", Period: "monthly",
		Method: "card", SessionID: "cs_1", Paid: true, AmountSatang: 149000, SubscriptionID: sub}
}

// apply runs events in order through Decide, keeping the state as the store would.
func apply(t *testing.T, evs ...domain.Event) (domain.FulfilState, []domain.Change) {
	t.Helper()
	st := domain.FulfilState{Tiers: tiers}
	subs := map[string]*domain.ProviderSub{}
	var cs []domain.Change
	for _, ev := range evs {
		st.ProviderSub = subs[ev.SubscriptionID]
		c := domain.Decide(ev, st, now)
		if c.Sub != nil {
			st.Sub, st.Found = *c.Sub, true
		}
		if c.ProviderSub != nil {
			subs[c.ProviderSub.ID] = c.ProviderSub
		}
		cs = append(cs, c)
	}
	st.ProviderSub = nil
	return st, cs
}

func TestPaidCheckoutGrantsThirtyDays(t *testing.T) {
	st, cs := apply(t, completed("e1", now, "sub_1"))
	if !st.Found || st.Sub.Tier != "pro" || !st.Sub.StartDate.Equal(day("2026-11-25")) || !st.Sub.EndDate.Equal(day("2026-12-24")) {
		t.Fatalf("plan %+v", st.Sub)
	}
	if p := cs[0].Payment; p == nil || !p.Succeeded || p.AmountSatang != 149000 || cs[0].CheckoutStatus != "paid" {
		t.Fatalf("change %+v", cs[0])
	}
}

func TestDeletedBeforeCompletedGrantsNothing(t *testing.T) {
	deleted := domain.Event{ID: "e2", Type: domain.EvSubscriptionDeleted, Created: now.Add(time.Minute), SubscriptionID: "sub_1", UserID: "u1"}
	st, cs := apply(t, deleted, completed("e1", now, "sub_1"))
	if st.Found || cs[1].Sub != nil || cs[1].Payment != nil {
		t.Fatalf("late completed granted: %+v %+v", st.Sub, cs[1])
	}
}

func TestOlderUpdateIgnoredNewerApplies(t *testing.T) {
	upd := func(id string, at time.Time, cancel bool) domain.Event {
		return domain.Event{ID: id, Type: domain.EvSubscriptionUpdated, Created: at, SubscriptionID: "sub_1", CancelAtPeriodEnd: cancel}
	}
	st, _ := apply(t, completed("e1", now, "sub_1"), upd("e3", now.Add(2*time.Minute), true), upd("e2", now.Add(time.Minute), false))
	if !st.Sub.CancelAtPeriodEnd {
		t.Fatal("an older update undid a newer cancel_at_period_end")
	}
}

func TestRenewalExtendsAndDeletionEndsToday(t *testing.T) {
	renew := domain.Event{ID: "e4", Type: domain.EvInvoicePaid, Created: now, SubscriptionID: "sub_1", InvoiceID: "in_2",
		Renewal: true, AmountSatang: 149000, PeriodEnd: time.Date(2027, 1, 24, 3, 0, 0, 0, time.UTC)}
	first := renew
	first.Renewal, first.ID, first.InvoiceID = false, "e3", "in_1"
	st, cs := apply(t, completed("e1", now, "sub_1"), first, renew)
	if cs[1].Sub != nil || cs[1].Payment != nil {
		t.Fatal("the first invoice changed the plan (the checkout already did)")
	}
	if !st.Sub.EndDate.Equal(day("2027-01-24")) || cs[2].Payment.ProviderRef != "in_2" {
		t.Fatalf("renewal: %+v", st.Sub)
	}
	del := domain.Event{ID: "e5", Type: domain.EvSubscriptionDeleted, Created: now.Add(time.Hour), SubscriptionID: "sub_1"}
	st2, _ := apply(t, completed("e1", now, "sub_1"), renew, del)
	if st2.Sub.Status != "cancelled" || !st2.Sub.EndDate.Equal(day("2026-11-25")) {
		t.Fatalf("after deletion: %+v", st2.Sub)
	}
}

func TestPromptPayWaitsForTheAsyncPayment(t *testing.T) {
	pending := completed("e1", now, "")
	pending.Method, pending.Paid, pending.Period, pending.AmountSatang = "promptpay", false, "yearly", 1490000
	ok := pending
	ok.ID, ok.Type = "e2", domain.EvAsyncPaymentSucceeded
	st, cs := apply(t, pending, ok)
	if cs[0].Sub != nil || !st.Sub.EndDate.Equal(day("2027-11-24")) || st.Sub.Method != "promptpay" {
		t.Fatalf("promptpay: %+v %+v", cs[0], st.Sub)
	}
	failed := pending
	failed.ID, failed.Type = "e3", domain.EvAsyncPaymentFailed
	_, cs = apply(t, pending, failed)
	if cs[1].Sub != nil || cs[1].Payment == nil || cs[1].Payment.Succeeded || cs[1].CheckoutStatus != "failed" {
		t.Fatalf("failed promptpay: %+v", cs[1])
	}
}

// A checkout session pays once, for its price: a second event for it (another
// event id) grants nothing, and an amount other than the order's price, or
// an order other than its checkout's, is not fulfilled and needs a person.
func TestFulfilOncePerSessionAtItsPrice(t *testing.T) {
	st := domain.FulfilState{Tiers: tiers, RefPaid: true}
	if c := domain.Decide(completed("e2", now, "sub_1"), st, now); c.Sub != nil || c.Payment != nil || c.Reason == "" {
		t.Fatalf("second event for a paid session: %+v", c)
	}
	renewal := domain.Event{ID: "e3", Type: domain.EvInvoicePaid, Created: now, SubscriptionID: "sub_1", InvoiceID: "in_1",
		Renewal: true, AmountSatang: 149000, PeriodEnd: now.AddDate(0, 1, 0)}
	if c := domain.Decide(renewal, st, now); c.Sub != nil || c.Payment != nil {
		t.Fatalf("second event for a paid invoice: %+v", c)
	}
	for name, edit := range map[string]func(*domain.Event){
		"one satang":              func(e *domain.Event) { e.AmountSatang = 1 },
		"a month's price, yearly": func(e *domain.Event) { e.Period = "yearly" },
		"more than the price":     func(e *domain.Event) { e.AmountSatang = 149001 },
	} {
		ev := completed("e1", now, "sub_1")
		edit(&ev)
		c := domain.Decide(ev, domain.FulfilState{Tiers: tiers}, now)
		if c.Sub != nil || c.Payment != nil || !c.Alert || c.Reason == "" {
			t.Errorf("%s: %+v", name, c)
		}
	}
	// The checkout's own amount (the price when it was opened) is the one due.
	co := &domain.Checkout{SessionID: "cs_1", UserID: "u1", Tier: "pro", Period: "monthly", Method: "card", AmountSatang: 129000}
	ev := completed("e1", now, "sub_1")
	ev.AmountSatang = 129000
	if c := domain.Decide(ev, domain.FulfilState{Tiers: tiers, Checkout: co}, now); c.Sub == nil || c.Payment == nil || c.Alert {
		t.Fatalf("paid the checkout's amount: %+v", c)
	}
	for name, edit := range map[string]func(*domain.Event){
		"another user":   func(e *domain.Event) { e.UserID = "u2" },
		"another tier":   func(e *domain.Event) { e.Tier, e.AmountSatang = "enterprise", 129000 },
		"another method": func(e *domain.Event) { e.Method = "promptpay" },
	} {
		e := ev
		edit(&e)
		if c := domain.Decide(e, domain.FulfilState{Tiers: tiers, Checkout: co}, now); c.Sub != nil || c.Payment != nil || !c.Alert {
			t.Errorf("%s: %+v", name, c)
		}
	}
}
