package domain_test

import (
	"testing"
	"time"

	"bidradar/services/subscription/internal/domain"
)

func plan(tier, start, end string) domain.Subscription {
	e := day(end)
	return domain.Subscription{UserID: "u1", Tier: tier, Status: "active", StartDate: day(start), EndDate: &e, Method: "promptpay", Period: "monthly"}
}

// now is 2026-11-25 10:00 in Bangkok; a plan ending 2026-12-04 has 10
// unused days (today included).
func TestGrantForTheLifecycleRule(t *testing.T) {
	lapsed := plan("pro", "2026-09-01", "2026-10-01")
	expiredStatus := plan("pro", "2026-11-01", "2026-12-30")
	expiredStatus.Status = "expired"
	for _, c := range []struct {
		name       string
		cur        domain.Subscription
		found      bool
		tier       string
		days       int
		kind       domain.GrantKind
		start, end string
		credit     int
	}{
		{"no plan starts today", domain.Subscription{}, false, "pro", 30, domain.GrantNew, "2026-11-25", "2026-12-24", 0},
		{"a year starts today", domain.Subscription{}, false, "pro", 365, domain.GrantNew, "2026-11-25", "2027-11-24", 0},
		{"free plan starts today", plan("free", "2026-01-01", "2027-01-01"), true, "starter", 30, domain.GrantNew, "2026-11-25", "2026-12-24", 0},
		{"lapsed plan starts today", lapsed, true, "pro", 365, domain.GrantNew, "2026-11-25", "2027-11-24", 0},
		{"expired status starts today", expiredStatus, true, "pro", 30, domain.GrantNew, "2026-11-25", "2026-12-24", 0},
		{"same tier extends after the end", plan("starter", "2026-11-05", "2026-12-04"), true, "starter", 30, domain.GrantExtend, "2026-11-05", "2027-01-03", 0},
		// 10 unused days × 490 ÷ 1,490 = 3.28 → 3 days credited.
		{"upgrade starts now with credit", plan("starter", "2026-11-05", "2026-12-04"), true, "pro", 30, domain.GrantUpgrade, "2026-11-25", "2026-12-27", 3},
		// 10 × 1,490 ÷ 4,990 = 2.98 → 2.
		{"upgrade rounds credit down", plan("pro", "2026-11-05", "2026-12-04"), true, "enterprise", 30, domain.GrantUpgrade, "2026-11-25", "2026-12-26", 2},
		// Ending today: 1 unused day × 490 ÷ 1,490 = 0.
		{"upgrade on the last day", plan("starter", "2026-10-27", "2026-11-25"), true, "pro", 30, domain.GrantUpgrade, "2026-11-25", "2026-12-24", 0},
		// 340 unused days × 1,490 ÷ 4,990 = 101.5 → 101.
		{"upgrade of a year", plan("pro", "2026-10-31", "2027-10-30"), true, "enterprise", 365, domain.GrantUpgrade, "2026-11-25", "2028-03-04", 101},
		{"downgrade waits for the end", plan("pro", "2026-11-05", "2026-12-04"), true, "starter", 30, domain.GrantDowngrade, "2026-12-05", "2027-01-03", 0},
		{"downgrade of a year waits", plan("enterprise", "2026-11-05", "2027-11-04"), true, "starter", 365, domain.GrantDowngrade, "2027-11-05", "2028-11-03", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := domain.GrantFor(c.cur, c.found, tiers, c.tier, c.days, now)
			if g.Kind != c.kind || !g.Start.Equal(day(c.start)) || !g.End.Equal(day(c.end)) || g.CreditDays != c.credit {
				t.Fatalf("got %s %s–%s credit %d; want %s %s–%s credit %d", g.Kind,
					g.Start.Format(time.DateOnly), g.End.Format(time.DateOnly), g.CreditDays, c.kind, c.start, c.end, c.credit)
			}
		})
	}
}

func TestDowngradeKeepsThePlanThenRolls(t *testing.T) {
	cur := plan("pro", "2026-11-05", "2026-12-04")
	cur.Method, cur.ProviderSubscriptionID = "card", "sub_old"
	ev := completed("e1", now, "sub_new")
	ev.Tier, ev.AmountSatang = "starter", 49000
	c := domain.Decide(ev, domain.FulfilState{Sub: cur, Found: true, Tiers: tiers}, now)
	s := c.Sub
	if c.Grant != domain.GrantDowngrade || s.Tier != "pro" || !s.EndDate.Equal(day("2026-12-04")) || s.Next == nil ||
		s.Next.Tier != "starter" || !s.Next.EndDate.Equal(day("2027-01-03")) || !s.CancelAtPeriodEnd {
		t.Fatalf("downgrade: %+v next %+v", s, s.Next)
	}
	if pc := c.ProviderCancel; pc == nil || pc.SubscriptionID != "sub_old" || !pc.AtPeriodEnd {
		t.Fatalf("the old card subscription must stop renewing: %+v", pc)
	}
	if c.Payment == nil || !c.Payment.Succeeded || c.Payment.Tier != "starter" {
		t.Fatalf("payment %+v", c.Payment)
	}
	// Still pro on its last day; starter the day after; free after that.
	for _, x := range []struct {
		at     string
		tier   string
		status string
		moved  bool
	}{
		{"2026-12-04", "pro", "active", false},
		{"2026-12-05", "starter", "active", true},
		{"2027-01-04", "starter", "expired", true},
	} {
		at := time.Date(day(x.at).Year(), day(x.at).Month(), day(x.at).Day(), 0, 30, 0, 0, domain.Bangkok)
		got, moved := domain.Roll(*s, at)
		if got.Tier != x.tier || got.Status != x.status || moved != x.moved {
			t.Fatalf("%s: %s %s moved=%v", x.at, got.Tier, got.Status, moved)
		}
		if x.at == "2026-12-05" && (!got.StartDate.Equal(day("2026-12-05")) || got.ProviderSubscriptionID != "sub_new" || got.Next != nil || got.CancelAtPeriodEnd) {
			t.Fatalf("rolled: %+v", got)
		}
	}
}

func TestUpgradeCancelsTheOldCardNow(t *testing.T) {
	cur := plan("starter", "2026-11-05", "2026-12-04")
	cur.Method, cur.ProviderSubscriptionID = "card", "sub_old"
	c := domain.Decide(completed("e1", now, "sub_new"), domain.FulfilState{Sub: cur, Found: true, Tiers: tiers, Email: "a@example.com"}, now)
	if c.Grant != domain.GrantUpgrade || c.Sub.Tier != "pro" || !c.Sub.EndDate.Equal(day("2026-12-27")) || c.Sub.Email != "a@example.com" {
		t.Fatalf("upgrade: %+v", c.Sub)
	}
	if pc := c.ProviderCancel; pc == nil || pc.SubscriptionID != "sub_old" || pc.AtPeriodEnd {
		t.Fatalf("provider cancel %+v", pc)
	}
}

// Passes end at the end of their last day in Bangkok.
func TestExpiryAtEndDateInBangkok(t *testing.T) {
	s := plan("pro", "2026-11-01", "2026-11-30")
	for _, x := range []struct {
		at     time.Time
		active bool
		left   int
	}{
		{time.Date(2026, 11, 30, 0, 0, 0, 0, domain.Bangkok), true, 1},
		{time.Date(2026, 11, 30, 23, 59, 59, 0, domain.Bangkok), true, 1},
		{time.Date(2026, 11, 30, 16, 59, 59, 0, time.UTC), true, 1}, // 23:59:59 Bangkok
		{time.Date(2026, 11, 30, 17, 0, 0, 0, time.UTC), false, 0},  // midnight Bangkok
		{time.Date(2026, 12, 1, 0, 0, 0, 0, domain.Bangkok), false, 0},
		{time.Date(2026, 11, 24, 12, 0, 0, 0, domain.Bangkok), true, 7},
	} {
		if s.Active(x.at) != x.active || s.DaysRemaining(x.at) != x.left {
			t.Fatalf("%s: active %v left %d", x.at, s.Active(x.at), s.DaysRemaining(x.at))
		}
		got, moved := domain.Roll(s, x.at)
		if moved == x.active || (moved && got.Status != "expired") {
			t.Fatalf("%s: roll %v %s", x.at, moved, got.Status)
		}
	}
}

// The plan-end job is due exactly when Roll first moves the plan: at the
// start of the next day in Bangkok, whatever the end date's location.
func TestPlanEndsAtIsWhenRollMoves(t *testing.T) {
	for _, end := range []string{"2026-11-30", "2026-12-31", "2028-02-28", "2028-02-29"} {
		s := plan("pro", "2026-11-01", end)
		at := domain.PlanEndsAt(*s.EndDate)
		if _, moved := domain.Roll(s, at.Add(-time.Nanosecond)); moved {
			t.Fatalf("%s: moved before %s", end, at)
		}
		if _, moved := domain.Roll(s, at); !moved {
			t.Fatalf("%s: not moved at %s", end, at)
		}
		if got := at.In(domain.Bangkok); got.Hour() != 0 || got.Format(time.DateOnly) != day(end).AddDate(0, 0, 1).Format(time.DateOnly) {
			t.Fatalf("%s: due %s", end, got)
		}
	}
}

func TestReminderDue(t *testing.T) {
	card := plan("pro", "2026-11-01", "2026-11-30")
	card.Method, card.ProviderSubscriptionID = "card", "sub_1"
	cancelled := card
	cancelled.CancelAtPeriodEnd = true
	queued := plan("pro", "2026-11-01", "2026-11-30")
	queued.Next = &domain.NextPlan{Tier: "starter", EndDate: day("2026-12-30")}
	pass := plan("pro", "2026-11-01", "2026-11-30")
	at := func(d string) time.Time {
		x := day(d)
		return time.Date(x.Year(), x.Month(), x.Day(), 9, 0, 0, 0, domain.Bangkok)
	}
	for _, c := range []struct {
		name string
		s    domain.Subscription
		at   string
		kind string
	}{
		{"pass 8 days before", pass, "2026-11-22", ""},
		{"pass 7 days before", pass, "2026-11-23", domain.Reminder7Days},
		{"pass 2 days before (missed run)", pass, "2026-11-28", domain.Reminder7Days},
		{"pass 1 day before", pass, "2026-11-29", domain.Reminder1Day},
		{"pass last day (missed run)", pass, "2026-11-30", domain.Reminder1Day},
		{"pass ended", pass, "2026-12-01", ""},
		{"renewing card", card, "2026-11-23", ""},
		{"cancelled card", cancelled, "2026-11-29", domain.Reminder1Day},
		{"a plan waits after it", queued, "2026-11-29", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			k, ok := domain.ReminderDue(c.s, at(c.at))
			if k != c.kind || ok != (c.kind != "") {
				t.Fatalf("got %q %v want %q", k, ok, c.kind)
			}
		})
	}
}

func TestCancelAndResumeRules(t *testing.T) {
	card := plan("pro", "2026-11-01", "2026-12-30")
	card.Method, card.ProviderSubscriptionID = "card", "sub_1"
	cancelled := card
	cancelled.CancelAtPeriodEnd = true
	ended := cancelled // the card's subscription ended at the provider
	ended.ProviderEndedID = "sub_1"
	replaced := ended // then a new card subscription
	replaced.ProviderSubscriptionID = "sub_2"
	pass := plan("pro", "2026-11-01", "2026-12-30")
	downgraded := cancelled
	downgraded.Next = &domain.NextPlan{Tier: "basic", Period: "monthly", Method: "card", EndDate: cancelled.EndDate.AddDate(0, 1, 0)}
	for _, c := range []struct {
		name           string
		s              domain.Subscription
		found          bool
		cancel, resume error
	}{
		{"no plan", domain.Subscription{}, false, domain.ErrNoPlanToCancel, domain.ErrNoPlanToCancel},
		{"card", card, true, nil, domain.ErrNotCancelled},
		{"cancelled card", cancelled, true, domain.ErrAlreadyCancel, nil},
		{"downgrade booked", downgraded, true, domain.ErrAlreadyCancel, domain.ErrResumeQueued},
		{"card ended at the provider", ended, true, domain.ErrAlreadyCancel, domain.ErrResumeProviderEnded},
		{"a new card after the ended one", replaced, true, domain.ErrAlreadyCancel, nil},
		{"pass", pass, true, domain.ErrPassNoRenewal, domain.ErrNotCancelled},
		{"lapsed", plan("pro", "2026-09-01", "2026-10-01"), true, domain.ErrNoPlanToCancel, domain.ErrNoPlanToCancel},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := domain.CanCancel(c.s, c.found, now); err != c.cancel {
				t.Fatalf("cancel: %v", err)
			}
			if err := domain.CanResume(c.s, c.found, now); err != c.resume {
				t.Fatalf("resume: %v", err)
			}
		})
	}
}

// Whatever replaces a card subscription stops it at the provider: now for
// an upgrade or a lapsed plan, at its period's end for an extension or a
// downgrade (unless already cancelled).
func TestTheReplacedCardStops(t *testing.T) {
	card := func(tier, end string, cancelled bool) domain.Subscription {
		s := plan(tier, "2026-11-05", end)
		s.Method, s.ProviderSubscriptionID, s.CancelAtPeriodEnd = "card", "sub_old", cancelled
		return s
	}
	for _, c := range []struct {
		name   string
		cur    domain.Subscription
		tier   string
		newSub string
		want   *domain.ProviderCancel
	}{
		{"upgrade by card", card("starter", "2026-12-04", false), "pro", "sub_new", &domain.ProviderCancel{SubscriptionID: "sub_old"}},
		{"upgrade by pass", card("starter", "2026-12-04", false), "pro", "", &domain.ProviderCancel{SubscriptionID: "sub_old"}},
		{"extend by card", card("pro", "2026-12-04", false), "pro", "sub_new", &domain.ProviderCancel{SubscriptionID: "sub_old", AtPeriodEnd: true}},
		{"extend by pass", card("pro", "2026-12-04", false), "pro", "", &domain.ProviderCancel{SubscriptionID: "sub_old", AtPeriodEnd: true}},
		{"extend, already cancelled", card("pro", "2026-12-04", true), "pro", "", nil},
		{"downgrade", card("pro", "2026-12-04", false), "starter", "sub_new", &domain.ProviderCancel{SubscriptionID: "sub_old", AtPeriodEnd: true}},
		{"lapsed", card("pro", "2026-10-04", false), "pro", "sub_new", &domain.ProviderCancel{SubscriptionID: "sub_old"}},
		{"same subscription", card("pro", "2026-12-04", false), "pro", "sub_old", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			ev := completed("e1", now, c.newSub)
			ev.Tier, ev.AmountSatang = c.tier, tiers[c.tier].PriceMonthSatang
			if c.newSub == "" {
				ev.Method = "promptpay"
			}
			got := domain.Decide(ev, domain.FulfilState{Sub: c.cur, Found: true, Tiers: tiers}, now).ProviderCancel
			if (got == nil) != (c.want == nil) || (got != nil && *got != *c.want) {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
		})
	}
}
