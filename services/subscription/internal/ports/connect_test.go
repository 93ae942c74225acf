package ports_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"

	subscriptionv1 "bidradar/gen/subscription/v1"
	"bidradar/pkg/apperr"
	"bidradar/pkg/authn"
	"bidradar/pkg/testutil/pgtest"
	"bidradar/services/subscription/internal/adapters/postgres"
	"bidradar/services/subscription/internal/app"
	"bidradar/services/subscription/internal/ports"
	"bidradar/services/subscription/subscriptionsvc"
)

// handler runs against a real, migrated subscription schema.
func handler(t *testing.T) (*ports.Handler, func(sql string, args ...any)) {
	t.Helper()
	ctx := context.Background()
	pool, err := subscriptionsvc.Open(ctx, pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	exec := func(sql string, args ...any) {
		if _, err := pool.Exec(ctx, sql, args...); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	return ports.NewHandler(app.New(postgres.New(pool), nil, func() time.Time { return now }, nil)), exec
}

func as(user string) context.Context {
	return authn.WithClaims(context.Background(), authn.Claims{UserID: user})
}

func TestListTiers(t *testing.T) {
	h, _ := handler(t)
	all, err := h.ListTiers(context.Background(), connect.NewRequest(&subscriptionv1.ListTiersRequest{IncludeAll: true}))
	if err != nil {
		t.Fatal(err)
	}
	got := all.Msg.GetTierDetails()
	if len(got) != 4 || got[0].GetTier() != "free" || got[3].GetTier() != "enterprise" {
		t.Fatalf("tiers %v", got)
	}
	pro := got[2]
	if pro.GetPrice() != 1490 || pro.GetPriceYearly() != 14900 || pro.GetLabel() != "มืออาชีพ" || pro.GetCombinationLimits().GetSearchCombination() != 50 {
		t.Fatalf("pro tier %v", pro)
	}
	if got[3].GetCombinationLimits().GetSearchCombination() != -1 {
		t.Fatalf("enterprise should be unlimited (-1): %v", got[3])
	}
	paid, _ := h.ListTiers(context.Background(), connect.NewRequest(&subscriptionv1.ListTiersRequest{}))
	if len(paid.Msg.GetTierDetails()) != 3 || len(paid.Msg.GetUpgradeOptions()) != 3 || paid.Msg.GetCurrentTier() != "free" {
		t.Fatalf("paid tiers for a visitor: %v", paid.Msg)
	}
}

func TestMySubscription(t *testing.T) {
	h, exec := handler(t)
	if _, err := h.GetMySubscription(context.Background(), connect.NewRequest(&subscriptionv1.GetMySubscriptionRequest{})); err == nil {
		t.Fatal("visitor got a subscription")
	}
	free, err := h.GetMySubscription(as("u-free"), connect.NewRequest(&subscriptionv1.GetMySubscriptionRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	if free.Msg.GetTier() != "free" || !free.Msg.GetIsActive() || free.Msg.GetSubscription().GetStatus() != "none" ||
		free.Msg.GetButtonStatusExamples()["explore_live_search"] != "locked" || len(free.Msg.GetUpgradeRecommendations()) != 3 {
		t.Fatalf("free user: %v", free.Msg)
	}

	exec(`INSERT INTO subscriptions (user_id, tier, status, start_date, end_date, last_payment_date, last_payment_satang)
		VALUES ('u-pro', 'pro', 'active', '2026-11-01', '2026-11-30', '2026-11-01', 149000)`)
	pro, err := h.GetMySubscription(as("u-pro"), connect.NewRequest(&subscriptionv1.GetMySubscriptionRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	m := pro.Msg
	if m.GetTier() != "pro" || m.GetDaysRemaining() != 10 || m.GetSubscription().GetLastPaymentAmount() != 1490 ||
		m.GetCombinationLimits().GetOvernightSearchSave() != 30 || len(m.GetUpgradeRecommendations()) != 1 {
		t.Fatalf("pro user: %v", m)
	}

	exec(`INSERT INTO subscriptions (user_id, tier, status, start_date, end_date) VALUES ('u-old', 'starter', 'active', '2026-01-01', '2026-02-01')`)
	old, _ := h.GetMySubscription(as("u-old"), connect.NewRequest(&subscriptionv1.GetMySubscriptionRequest{}))
	if old.Msg.GetTier() != "free" || old.Msg.GetDaysRemaining() != 0 {
		t.Fatalf("lapsed starter should fall back to free: %v", old.Msg)
	}
	tiers, _ := h.ListTiers(as("u-old"), connect.NewRequest(&subscriptionv1.ListTiersRequest{}))
	if !tiers.Msg.GetNeedsUpgrade() {
		t.Fatal("a lapsed subscription needs an upgrade")
	}
}

func TestConsumeQuota(t *testing.T) {
	h, exec := handler(t)
	consume := func(ctx context.Context, kind string, amount int32) (*subscriptionv1.ConsumeQuotaResponse, error) {
		r, err := h.ConsumeQuota(ctx, connect.NewRequest(&subscriptionv1.ConsumeQuotaRequest{Kind: kind, Amount: amount}))
		if err != nil {
			return nil, err
		}
		return r.Msg, nil
	}
	if _, err := consume(context.Background(), "search_combination", 1); err == nil {
		t.Fatal("visitor consumed quota")
	}
	if _, err := h.ConsumeQuota(as("u1"), connect.NewRequest(&subscriptionv1.ConsumeQuotaRequest{UserId: "u2", Kind: "search_combination", Amount: 1})); err == nil {
		t.Fatal("spent another user's quota")
	}
	if _, err := consume(as("u1"), "nonsense", 1); err == nil {
		t.Fatal("unknown kind accepted")
	}

	// Free tier: 3 search combinations a day, concurrently consumed exactly once each.
	var wg sync.WaitGroup
	var mu sync.Mutex
	allowed := 0
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := consume(as("u1"), "search_combination", 1)
			if err != nil {
				t.Error(err)
				return
			}
			if r.GetAllowed() {
				mu.Lock()
				allowed++
				mu.Unlock()
			} else if !strings.Contains(r.GetDetail(), "Limit reached") {
				t.Errorf("refusal detail %q", r.GetDetail())
			}
		}()
	}
	wg.Wait()
	if allowed != 3 {
		t.Fatalf("free tier allowed %d combinations, want 3", allowed)
	}
	peek, _ := consume(as("u1"), "search_combination", 0)
	if !peek.GetAllowed() || peek.GetRemainingToday() != 0 || peek.GetRemainingMonth() != 27 {
		t.Fatalf("dry run: %v", peek)
	}
	mine, _ := h.GetMySubscription(as("u1"), connect.NewRequest(&subscriptionv1.GetMySubscriptionRequest{}))
	if u := mine.Msg.GetUsage(); u.GetSearchCombinationToday() != 3 || u.GetSearchCombinationMonth() != 3 {
		t.Fatalf("usage %v", u)
	}

	// Saved searches are counted by the projects service: no standing
	// counter here, and nothing is released.
	if _, err := consume(as("u1"), "overnight_search_save", 1); err == nil {
		t.Fatal("overnight_search_save is not a consumable kind")
	}
	if _, err := consume(as("u1"), "search_combination", -1); err == nil {
		t.Fatal("negative amount accepted")
	}

	// Enterprise is unlimited.
	exec(`INSERT INTO subscriptions (user_id, tier, status, start_date) VALUES ('u-ent', 'enterprise', 'active', '2026-11-01')`)
	for range 5 {
		if r, _ := consume(as("u-ent"), "search_combination", 1); !r.GetAllowed() || r.GetRemainingToday() != -1 {
			t.Fatalf("enterprise refused: %v", r)
		}
	}
}

// The tier table is the one source of what each tier includes: the
// pricing cards (ListTiers) and the services' checks (GetEntitlements)
// read the same values.
func TestTierTableEntitlements(t *testing.T) {
	h, _ := handler(t)
	all, err := h.ListTiers(context.Background(), connect.NewRequest(&subscriptionv1.ListTiersRequest{IncludeAll: true}))
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		normal, overnight, watchlist, seats int32
		features                            string
	}
	wants := map[string]want{
		"free":       {1, 0, 0, 0, ""},
		"starter":    {5, 5, 0, 0, "email_alerts market_benchmarks"},
		"pro":        {30, 30, 20, 3, "email_alerts line_alerts ocds_export market_benchmarks market_profiles"},
		"enterprise": {200, 200, 200, 10, "email_alerts line_alerts ocds_export market_benchmarks market_profiles account_manager"},
	}
	for _, tier := range all.Msg.GetTierDetails() {
		w, l := wants[tier.GetTier()], tier.GetCombinationLimits()
		if l.GetNormalSearchSave() != w.normal || l.GetOvernightSearchSave() != w.overnight || strings.Join(tier.GetFeatures(), " ") != w.features ||
			l.GetWatchlistSize() != w.watchlist || l.GetTeamSeats() != w.seats {
			t.Errorf("%s: %v; want %+v", tier.GetTier(), tier, w)
		}
	}
}

func TestGetEntitlements(t *testing.T) {
	h, exec := handler(t)
	exec(`INSERT INTO subscriptions (user_id, tier, status, start_date, end_date) VALUES
		('u-pro', 'pro', 'active', '2026-11-01', '2026-11-30'),
		('u-lapsed', 'starter', 'active', '2026-01-01', '2026-02-01'),
		('u-cancelled', 'enterprise', 'cancelled', '2026-11-01', '2026-11-30')`)
	res, err := h.GetEntitlements(context.Background(), connect.NewRequest(&subscriptionv1.GetEntitlementsRequest{
		UserIds: []string{"u-pro", "u-none", "u-lapsed", "u-pro", "", "u-cancelled"}}))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range res.Msg.GetUsers() {
		got = append(got, u.GetUserId()+"="+u.GetTier().GetTier())
	}
	if strings.Join(got, " ") != "u-pro=pro u-none=free u-lapsed=free u-cancelled=free" {
		t.Fatalf("entitlements %v", got)
	}
	if pro := res.Msg.GetUsers()[0].GetTier(); pro.GetCombinationLimits().GetNormalSearchSave() != 30 || len(pro.GetFeatures()) != 5 ||
		pro.GetCombinationLimits().GetTeamSeats() != 3 {
		t.Fatalf("pro entitlements %v", pro)
	}
	many := make([]string, 501)
	for i := range many {
		many[i] = fmt.Sprintf("u%d", i)
	}
	if _, err := h.GetEntitlements(context.Background(), connect.NewRequest(&subscriptionv1.GetEntitlementsRequest{UserIds: many})); apperr.KindOf(err) != apperr.InvalidArgument {
		t.Fatalf("501 users: %v", err)
	}
}
