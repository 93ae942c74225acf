package domain

import (
	"time"

	"bidradar/pkg/apperr"
)

// The plan lifecycle (issue 10). What a purchase does to the plan in force:
//
//   - no plan, the free plan or a lapsed one: the new plan starts today;
//   - the same tier: its days are added after the current end date;
//   - a higher tier (upgrade): it takes effect today, and the unused days of
//     the old plan (today included) are credited pro rata to the new plan's
//     end date: credit = unused days × old monthly price ÷ new monthly price,
//     rounded down, so nothing paid is lost;
//   - a lower tier (downgrade): the current plan stays in force to the end of
//     its paid period; the new plan's days start the day after.
//
// Cancelling stops renewal at the end of the paid period (card plans, at the
// provider: cancel_at_period_end); resuming undoes it before the end. Passes
// (PromptPay) never renew. A plan past its end date (Asia/Bangkok) drops to
// free, or to the downgrade waiting after it.

// GrantKind names what a purchase does.
type GrantKind string

// Kinds of purchase.
const (
	GrantNew       GrantKind = "new"
	GrantExtend    GrantKind = "extend"
	GrantUpgrade   GrantKind = "upgrade"
	GrantDowngrade GrantKind = "downgrade"
)

// Grant is what buying days of a tier gives: the new plan's dates, and for
// an upgrade the days credited from the old plan.
type Grant struct {
	Kind       GrantKind
	Start, End time.Time
	CreditDays int
}

// Classify tells what buying tier means against the plan in force at now.
func Classify(cur Subscription, found bool, tiers map[string]Tier, tier string, now time.Time) GrantKind {
	if !found || !cur.Active(now) || cur.Tier == FreeTier || cur.EndDate == nil {
		return GrantNew
	}
	switch old, next := tiers[cur.Tier], tiers[tier]; {
	case cur.Tier == tier:
		return GrantExtend
	case next.Rank > old.Rank:
		return GrantUpgrade
	default:
		return GrantDowngrade
	}
}

// GrantFor applies the lifecycle rule to buying days of tier at now.
func GrantFor(cur Subscription, found bool, tiers map[string]Tier, tier string, days int, now time.Time) Grant {
	today := DayOf(now)
	g := Grant{Kind: Classify(cur, found, tiers, tier, now)}
	switch g.Kind {
	case GrantExtend:
		g.Start, g.End = cur.StartDate, cur.EndDate.AddDate(0, 0, days)
	case GrantDowngrade:
		g.Start, g.End = cur.EndDate.AddDate(0, 0, 1), cur.EndDate.AddDate(0, 0, days)
	case GrantUpgrade:
		unused := daysBetween(today, *cur.EndDate) + 1
		g.CreditDays = Credit(unused, tiers[cur.Tier].PriceMonthSatang, tiers[tier].PriceMonthSatang)
		g.Start, g.End = today, today.AddDate(0, 0, days-1+g.CreditDays)
	default:
		g.Start, g.End = today, today.AddDate(0, 0, days-1)
	}
	return g
}

// Credit converts days of one monthly price into days of another, rounded
// down (exact integer arithmetic on satang).
func Credit(days int, fromMonthSatang, toMonthSatang int64) int {
	if days <= 0 || toMonthSatang <= 0 || fromMonthSatang <= 0 {
		return 0
	}
	return int(int64(days) * fromMonthSatang / toMonthSatang)
}

// Roll brings a stored plan up to now: past its end date it becomes the
// downgrade waiting after it (when that is still running) or expires. changed
// reports whether anything moved (the plan-end job then writes it).
func Roll(s Subscription, now time.Time) (out Subscription, changed bool) {
	today := DayOf(now)
	for s.Status == "active" && s.EndDate != nil && today.After(*s.EndDate) {
		changed = true
		if n := s.Next; n != nil {
			start, end := s.EndDate.AddDate(0, 0, 1), n.EndDate
			s.Tier, s.Period, s.Method, s.ProviderSubscriptionID = n.Tier, n.Period, n.Method, n.ProviderSubscriptionID
			s.StartDate, s.EndDate, s.CancelAtPeriodEnd, s.Next = start, &end, false, nil
			continue
		}
		s.Status, s.CancelAtPeriodEnd = "expired", false
	}
	return s, changed
}

// JobPlanEnd is the queue kind (pkg/queue) that moves a plan on past its
// end date (Roll), keyed by user, due at PlanEndsAt; PlansDestination is its
// destination (this service's own database).
const (
	JobPlanEnd       = "subscription.plan-end"
	PlansDestination = "plans"
)

// PlanEndsAt is when a plan ending on end (a date) has ended: the next day
// begins in Bangkok, and Roll moves it on.
func PlanEndsAt(end time.Time) time.Time {
	return time.Date(end.Year(), end.Month(), end.Day()+1, 0, 0, 0, 0, Bangkok)
}

// Reminder kinds: 7 days and 1 day before a plan that does not renew ends.
const (
	Reminder7Days = "7d"
	Reminder1Day  = "1d"
)

// ReminderDue is the reminder to send today for a plan, if any. A plan that
// renews or has a plan waiting after it gets none. Days left counts from
// today to the end date: 7 → the 7-day reminder, 1 → the 1-day one; a run
// missed for a few days still sends them (2–7 and 0–1), once each, as the
// store remembers what was sent per plan end.
func ReminderDue(s Subscription, now time.Time) (string, bool) {
	if !s.Active(now) || s.EndDate == nil || s.Renews() || s.Next != nil || s.Tier == FreeTier {
		return "", false
	}
	switch left := daysBetween(DayOf(now), *s.EndDate); {
	case left <= 1:
		return Reminder1Day, true
	case left <= 7:
		return Reminder7Days, true
	}
	return "", false
}

// Errors of cancel and resume.
var (
	ErrNoPlanToCancel = apperr.New(apperr.FailedPrecondition, "cancel-no-plan", "ไม่มีแพ็กเกจแบบชำระเงินที่ใช้งานอยู่")
	ErrPassNoRenewal  = apperr.New(apperr.FailedPrecondition, "cancel-pass", "แพ็กเกจแบบชำระล่วงหน้า (พร้อมเพย์) ไม่ต่ออายุอัตโนมัติอยู่แล้ว จะสิ้นสุดตามวันหมดอายุ")
	ErrAlreadyCancel  = apperr.New(apperr.FailedPrecondition, "cancel-already", "แพ็กเกจนี้ยกเลิกการต่ออายุไว้แล้ว")
	ErrNotCancelled   = apperr.New(apperr.FailedPrecondition, "resume-not-cancelled", "แพ็กเกจนี้ไม่ได้ถูกยกเลิกการต่ออายุ")
	// A downgrade booked for the period's end stopped the current card's
	// renewal: renewing it again would charge for both plans.
	ErrResumeQueued = apperr.New(apperr.FailedPrecondition, "resume-plan-queued", "มีแพ็กเกจที่จองไว้ให้เริ่มใช้เมื่อแพ็กเกจนี้สิ้นสุด จึงต่ออายุแพ็กเกจปัจจุบันไม่ได้")
	// The card's subscription at the provider has ended (cancelled there,
	// e.g. after failed renewals): nothing is left to renew.
	ErrResumeProviderEnded = apperr.New(apperr.FailedPrecondition, "resume-provider-ended", "การต่ออายุด้วยบัตรถูกยกเลิกที่ผู้ให้บริการชำระเงินแล้ว จึงต่ออายุแพ็กเกจนี้ไม่ได้ เลือกแพ็กเกจใหม่ได้เมื่อแพ็กเกจนี้สิ้นสุด")
	// The plan moved to another card subscription (a checkout paid, or the
	// period rolled on) between telling the provider and recording it.
	ErrPlanChanged = apperr.New(apperr.Aborted, "plan-changed", "แพ็กเกจของคุณเพิ่งเปลี่ยน กรุณาโหลดหน้าใหม่แล้วลองอีกครั้ง")
	ErrPlanQueued  = apperr.New(apperr.FailedPrecondition, "checkout-plan-queued", "มีแพ็กเกจที่รอเริ่มใช้หลังแพ็กเกจปัจจุบันอยู่แล้ว กรุณารอให้เริ่มใช้ก่อนซื้อแพ็กเกจอื่น")
)

// CanCancel checks that a plan may be set to end at its period's end: an
// active paid card plan not already cancelled.
func CanCancel(s Subscription, found bool, now time.Time) error {
	switch {
	case !found || !s.Active(now) || s.Tier == FreeTier || s.EndDate == nil:
		return ErrNoPlanToCancel
	case s.Method != MethodCard:
		return ErrPassNoRenewal
	case s.CancelAtPeriodEnd:
		return ErrAlreadyCancel
	}
	return nil
}

// CanResume checks that a cancellation may be undone: before the end, not
// when a lower plan is booked to follow, and not when the card's
// subscription at the provider has ended.
func CanResume(s Subscription, found bool, now time.Time) error {
	if !found || !s.Active(now) || s.Tier == FreeTier {
		return ErrNoPlanToCancel
	}
	return s.ResumeRefusal()
}

// ResumeRefusal is why the plan's cancellation cannot be undone, dates
// apart (CanResume); nil when it can.
func (s Subscription) ResumeRefusal() error {
	switch {
	case !s.CancelAtPeriodEnd:
		return ErrNotCancelled
	case s.Next != nil:
		return ErrResumeQueued
	case s.ProviderSubscriptionID != "" && s.ProviderSubscriptionID == s.ProviderEndedID:
		return ErrResumeProviderEnded
	}
	return nil
}
