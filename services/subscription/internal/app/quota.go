package app

import (
	"context"

	"bidradar/pkg/apperr"
	"bidradar/services/subscription/internal/domain"
)

// MaxQuotaAmount bounds the units one ConsumeQuota call may spend.
const MaxQuotaAmount = 1000

var (
	errQuotaAmount = apperr.New(apperr.InvalidArgument, "quota-amount", "amount must be between 0 and 1000")
	errQuotaKind   = apperr.New(apperr.InvalidArgument, "quota-kind", "kind must be one of search_combination, database_filter_search, explore_live_search")
)

// QuotaUse is what ConsumeQuota did.
type QuotaUse struct {
	Allowed bool
	// Detail says, for the user, which limit refused (when not allowed).
	Detail string
	// What is left today and this month after the call: -1 when the kind
	// has no such window or it is unlimited; 0 for both when refused.
	RemainingDay, RemainingMonth int
}

// ConsumeQuota checks and consumes amount units of kind for the user under
// the plan in force (Current), every window of the kind at once (a day and
// a month for search combinations); amount 0 only reads.
func (a *App) ConsumeQuota(ctx context.Context, userID, kind string, amount int) (QuotaUse, error) {
	if amount < 0 || amount > MaxQuotaAmount {
		return QuotaUse{}, errQuotaAmount
	}
	plan, err := a.Current(ctx, userID)
	if err != nil {
		return QuotaUse{}, err
	}
	windows, err := domain.Windows(kind, plan.Tier.Limits, a.now())
	if err != nil {
		return QuotaUse{}, errQuotaKind
	}
	res, err := a.store.Consume(ctx, userID, kind, windows, amount)
	if err != nil {
		return QuotaUse{}, err
	}
	if !res.Allowed {
		return QuotaUse{Detail: domain.LimitDetail(res.Refused, plan.Tier.Label)}, nil
	}
	out := QuotaUse{Allowed: true, RemainingDay: -1, RemainingMonth: -1}
	for i, w := range windows {
		switch w.Period {
		case "month":
			out.RemainingMonth = res.Remaining[i]
		default:
			out.RemainingDay = res.Remaining[i]
		}
	}
	return out, nil
}

// Usage is what the user has used in today's and this month's windows,
// keyed "<kind>/day" and "<kind>/month".
func (a *App) Usage(ctx context.Context, userID string) (map[string]int, error) {
	day, month := domain.PeriodStarts(a.now())
	return a.store.Usage(ctx, userID, day, month)
}

// Tiers lists every tier in rank order.
func (a *App) Tiers(ctx context.Context) ([]domain.Tier, error) { return a.store.Tiers(ctx) }

// Payments lists the user's latest payments (200 at most), newest first.
func (a *App) Payments(ctx context.Context, userID string) ([]domain.Payment, error) {
	return a.store.Payments(ctx, userID)
}
