// Package postgres stores tiers and subscriptions.
package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"bidradar/services/subscription/internal/domain"
)

// Repo reads the subscription schema.
type Repo struct{ pool *pgxpool.Pool }

// New wraps a pool whose search_path is the subscription schema.
func New(pool *pgxpool.Pool) *Repo { return &Repo{pool: pool} }

// Tiers lists every tier by rank.
func (r *Repo) Tiers(ctx context.Context) ([]domain.Tier, error) { return tiersIn(ctx, r.pool) }

func tiersIn(ctx context.Context, q interface {
	Query(context.Context, string, ...any) (pgx.Rows, error)
}) ([]domain.Tier, error) {
	rows, err := q.Query(ctx, `SELECT tier, label, rank, price_month_satang, search_combination_day,
		search_combination_month, database_filter_search, overnight_search_save, explore_live_search, features
		FROM tiers ORDER BY rank`)
	if err != nil {
		return nil, fmt.Errorf("list tiers: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (domain.Tier, error) {
		var t domain.Tier
		err := row.Scan(&t.Name, &t.Label, &t.Rank, &t.PriceMonthSatang, &t.Limits.SearchCombinationDay,
			&t.Limits.SearchCombinationMonth, &t.Limits.DatabaseFilterSearch, &t.Limits.OvernightSearchSave,
			&t.Limits.ExploreLiveSearch, &t.Features)
		return t, err
	})
}

// Subscription returns the user's subscription, or ok=false when they have none.
func (r *Repo) Subscription(ctx context.Context, userID string) (domain.Subscription, bool, error) {
	s, err := scanSubscription(r.pool.QueryRow(ctx, `SELECT `+subColumns+` FROM subscriptions WHERE user_id = $1`, userID))
	if errors.Is(err, pgx.ErrNoRows) {
		return domain.Subscription{}, false, nil
	}
	if err != nil {
		return domain.Subscription{}, false, fmt.Errorf("get subscription: %w", err)
	}
	return s, true, nil
}

const subColumns = `user_id, tier, status, start_date, end_date, last_payment_date, last_payment_satang,
	coalesce(period, ''), coalesce(method, ''), coalesce(provider_subscription_id, ''), cancel_at_period_end`

func scanSubscription(row pgx.Row) (domain.Subscription, error) {
	var s domain.Subscription
	err := row.Scan(&s.UserID, &s.Tier, &s.Status, &s.StartDate, &s.EndDate, &s.LastPaymentDate, &s.LastPaymentSatang,
		&s.Period, &s.Method, &s.ProviderSubscriptionID, &s.CancelAtPeriodEnd)
	return s, err
}
