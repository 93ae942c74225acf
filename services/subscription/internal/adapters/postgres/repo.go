// Package postgres stores tiers and subscriptions.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"bidradar/pkg/queue"
	"bidradar/services/subscription/internal/domain"
)

// Repo reads the subscription schema.
type Repo struct {
	pool   *pgxpool.Pool
	seller domain.Party // the issuer receipts are issued by from now on
}

// New wraps a pool whose search_path is the subscription schema; receipts
// name domain.SampleSeller until WithSeller.
func New(pool *pgxpool.Pool) *Repo { return &Repo{pool: pool, seller: domain.SampleSeller} }

// WithSeller sets the issuer of the receipts issued from now on.
func (r *Repo) WithSeller(p domain.Party) *Repo {
	r.seller = p
	return r
}

// Tiers lists every tier by rank.
func (r *Repo) Tiers(ctx context.Context) ([]domain.Tier, error) { return tiersIn(ctx, r.pool) }

func tiersIn(ctx context.Context, q interface {
	Query(context.Context, string, ...any) (pgx.Rows, error)
}) ([]domain.Tier, error) {
	rows, err := q.Query(ctx, `SELECT tier, label, rank, price_month_satang, search_combination_day,
		search_combination_month, database_filter_search, overnight_search_save, explore_live_search,
		normal_search_save, email_alerts, line_alerts, ocds_export, account_manager,
		market_benchmarks, market_profiles, watchlist_size, team_seats
		FROM tiers ORDER BY rank`)
	if err != nil {
		return nil, fmt.Errorf("list tiers: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (domain.Tier, error) {
		var t domain.Tier
		err := row.Scan(&t.Name, &t.Label, &t.Rank, &t.PriceMonthSatang, &t.Limits.SearchCombinationDay,
			&t.Limits.SearchCombinationMonth, &t.Limits.DatabaseFilterSearch, &t.Limits.OvernightSearchSave,
			&t.Limits.ExploreLiveSearch, &t.Limits.NormalSearchSave, &t.Features.EmailAlerts, &t.Features.LineAlerts,
			&t.Features.OCDSExport, &t.Features.AccountManager, &t.Features.MarketBenchmarks, &t.Features.MarketProfiles,
			&t.Limits.WatchlistSize, &t.Limits.TeamSeats)
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

// Subscriptions returns the subscriptions of the users that have one.
func (r *Repo) Subscriptions(ctx context.Context, userIDs []string) (map[string]domain.Subscription, error) {
	rows, err := r.pool.Query(ctx, `SELECT `+subColumns+` FROM subscriptions WHERE user_id = ANY($1)`, userIDs)
	if err != nil {
		return nil, fmt.Errorf("get subscriptions: %w", err)
	}
	subs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (domain.Subscription, error) { return scanSubscription(row) })
	if err != nil {
		return nil, fmt.Errorf("get subscriptions: %w", err)
	}
	out := make(map[string]domain.Subscription, len(subs))
	for _, s := range subs {
		out[s.UserID] = s
	}
	return out, nil
}

const subColumns = `user_id, tier, status, start_date, end_date, last_payment_date, last_payment_satang,
	coalesce(period, ''), coalesce(method, ''), coalesce(provider_subscription_id, ''), cancel_at_period_end, email,
	coalesce(next_tier, ''), coalesce(next_period, ''), coalesce(next_method, ''), coalesce(next_provider_subscription_id, ''), next_end_date,
	coalesce(provider_ended_id, '')`

func scanSubscription(row pgx.Row) (domain.Subscription, error) {
	var s domain.Subscription
	var n domain.NextPlan
	var nextEnd *time.Time
	err := row.Scan(&s.UserID, &s.Tier, &s.Status, &s.StartDate, &s.EndDate, &s.LastPaymentDate, &s.LastPaymentSatang,
		&s.Period, &s.Method, &s.ProviderSubscriptionID, &s.CancelAtPeriodEnd, &s.Email,
		&n.Tier, &n.Period, &n.Method, &n.ProviderSubscriptionID, &nextEnd, &s.ProviderEndedID)
	if err == nil && n.Tier != "" && nextEnd != nil {
		n.EndDate = *nextEnd
		s.Next = &n
	}
	return s, err
}

// writeSubscription stores a plan (insert or replace). An active plan with
// an end date has its plan-end job put with it (pkg/queue), due when that
// date has passed: a plan renewed, extended or shortened moves its job.
func writeSubscription(ctx context.Context, tx pgx.Tx, s domain.Subscription, now time.Time) error {
	var n domain.NextPlan
	var nextEnd *time.Time
	if s.Next != nil {
		n, nextEnd = *s.Next, &s.Next.EndDate
	}
	_, err := tx.Exec(ctx, `INSERT INTO subscriptions (user_id, tier, status, start_date, end_date, last_payment_date,
		last_payment_satang, period, method, provider_subscription_id, cancel_at_period_end, updated_at, email,
		next_tier, next_period, next_method, next_provider_subscription_id, next_end_date, provider_ended_id)
		VALUES ($1, $2, $3, $4, $5, $6, $7, nullif($8, ''), nullif($9, ''), nullif($10, ''), $11, $12, $13,
		nullif($14, ''), nullif($15, ''), nullif($16, ''), nullif($17, ''), $18, nullif($19, ''))
		ON CONFLICT (user_id) DO UPDATE SET tier = $2, status = $3, start_date = $4, end_date = $5, last_payment_date = $6,
		last_payment_satang = $7, period = nullif($8, ''), method = nullif($9, ''), provider_subscription_id = nullif($10, ''),
		cancel_at_period_end = $11, updated_at = $12, email = $13, next_tier = nullif($14, ''), next_period = nullif($15, ''),
		next_method = nullif($16, ''), next_provider_subscription_id = nullif($17, ''), next_end_date = $18,
		provider_ended_id = nullif($19, '')`,
		s.UserID, s.Tier, s.Status, s.StartDate, s.EndDate, s.LastPaymentDate, s.LastPaymentSatang,
		s.Period, s.Method, s.ProviderSubscriptionID, s.CancelAtPeriodEnd, now, s.Email,
		n.Tier, n.Period, n.Method, n.ProviderSubscriptionID, nextEnd, s.ProviderEndedID)
	if err != nil {
		return fmt.Errorf("write plan: %w", err)
	}
	if s.Status != "active" || s.EndDate == nil {
		return nil
	}
	return queue.Put(ctx, tx, queue.Job{Kind: domain.JobPlanEnd, Key: s.UserID, Destination: domain.PlansDestination,
		Due: domain.PlanEndsAt(*s.EndDate)})
}
