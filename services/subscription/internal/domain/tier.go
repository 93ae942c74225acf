// Package domain holds the subscription rules: tiers and their limits (DESIGN §6).
package domain

import "time"

// Unlimited marks a limit without a ceiling.
const Unlimited = -1

// Limits are a tier's combination limits (SPEC §3).
type Limits struct {
	SearchCombinationDay   int
	SearchCombinationMonth int
	DatabaseFilterSearch   int
	OvernightSearchSave    int
	ExploreLiveSearch      int
}

// Tier is one plan. Prices are in satang (exact money).
type Tier struct {
	Name             string
	Label            string
	Rank             int
	PriceMonthSatang int64
	Limits           Limits
	Features         []string
}

// PriceYearSatang is the yearly price: a yearly plan costs 10 months.
func (t Tier) PriceYearSatang() int64 { return t.PriceMonthSatang * 10 }

// FreeTier is the tier of a user without a subscription.
const FreeTier = "free"

// Subscription is a user's current plan.
type Subscription struct {
	UserID            string
	Tier              string
	Status            string // active, expired, cancelled
	StartDate         time.Time
	EndDate           *time.Time
	LastPaymentDate   *time.Time
	LastPaymentSatang *int64

	Period                 string // monthly or yearly ("" for a plan set by hand)
	Method                 string // card or promptpay
	ProviderSubscriptionID string // the renewing card subscription, when any
	CancelAtPeriodEnd      bool
}

// Active reports whether the subscription is in force at now.
func (s Subscription) Active(now time.Time) bool {
	return s.Status == "active" && (s.EndDate == nil || !now.After(s.EndDate.Add(24*time.Hour)))
}

// DaysRemaining counts whole days left, 0 when expired or open-ended.
func (s Subscription) DaysRemaining(now time.Time) int {
	if s.EndDate == nil || !s.Active(now) {
		return 0
	}
	d := int(s.EndDate.Sub(now.Truncate(24*time.Hour)).Hours()/24) + 1
	if d < 0 {
		return 0
	}
	return d
}
