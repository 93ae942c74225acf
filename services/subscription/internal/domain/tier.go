// Package domain holds the subscription rules: tiers, their limits and features.
package domain

import "time"

// Unlimited marks a limit without a ceiling.
const Unlimited = -1

// Limits are a tier's combination limits (docs/product.md#subscription).
type Limits struct {
	SearchCombinationDay   int
	SearchCombinationMonth int
	DatabaseFilterSearch   int
	OvernightSearchSave    int // overnight searches held at once
	ExploreLiveSearch      int
	NormalSearchSave       int // normal (instantly alerting) searches held at once
	WatchlistSize          int // competitors' tax ids watched at once
	TeamSeats              int // members of a team this tier owns, owner and invitations included
}

// Features are what a tier includes beyond its numbers.
type Features struct {
	EmailAlerts    bool // instant and daily e-mail
	LineAlerts     bool
	OCDSExport     bool
	AccountManager bool
	// MarketBenchmarks: discount benchmarks and a project's price guide.
	MarketBenchmarks bool
	// MarketProfiles: supplier and agency profiles and the competitor watchlist.
	MarketProfiles bool
}

// Feature keys, as the API lists a tier's features (the app words them).
const (
	FeatureEmailAlerts    = "email_alerts"
	FeatureLineAlerts     = "line_alerts"
	FeatureOCDSExport     = "ocds_export"
	FeatureAccountManager = "account_manager"
	FeatureMarketBench    = "market_benchmarks"
	FeatureMarketProfiles = "market_profiles"
)

// Keys lists the features included, in a fixed order.
func (f Features) Keys() []string {
	out := []string{}
	for _, k := range []struct {
		on  bool
		key string
	}{{f.EmailAlerts, FeatureEmailAlerts}, {f.LineAlerts, FeatureLineAlerts}, {f.OCDSExport, FeatureOCDSExport},
		{f.MarketBenchmarks, FeatureMarketBench}, {f.MarketProfiles, FeatureMarketProfiles}, {f.AccountManager, FeatureAccountManager}} {
		if k.on {
			out = append(out, k.key)
		}
	}
	return out
}

// Tier is one plan. Prices are in satang (exact money).
type Tier struct {
	Name             string
	Label            string
	Rank             int
	PriceMonthSatang int64
	Limits           Limits
	Features         Features
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
	// ProviderEndedID is a card subscription the provider said has ended;
	// while it is ProviderSubscriptionID, nothing is left to resume.
	ProviderEndedID string

	Email string    // where receipts and reminders go (carried from the checkout)
	Next  *NextPlan // a downgrade waiting for the end of the paid period
}

// NextPlan is a paid plan that starts the day after the current one ends.
type NextPlan struct {
	Tier, Period, Method   string
	ProviderSubscriptionID string
	EndDate                time.Time
}

// Active reports whether the subscription is in force at now: its end date
// is the last Bangkok day it covers.
func (s Subscription) Active(now time.Time) bool {
	return s.Status == "active" && (s.EndDate == nil || !DayOf(now).After(*s.EndDate))
}

// DaysRemaining counts the Bangkok days left including today, 0 when expired
// or open-ended.
func (s Subscription) DaysRemaining(now time.Time) int {
	if s.EndDate == nil || !s.Active(now) {
		return 0
	}
	return daysBetween(DayOf(now), *s.EndDate) + 1
}

// Renews reports whether the provider will charge again at the end: a card
// subscription at the provider not set to cancel. Passes never renew.
func (s Subscription) Renews() bool {
	return s.ProviderSubscriptionID != "" && !s.CancelAtPeriodEnd
}

// daysBetween counts calendar days from a to b (dates at midnight UTC).
func daysBetween(a, b time.Time) int { return int(b.Sub(a).Hours() / 24) }
