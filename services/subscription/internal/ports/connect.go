// Package ports serves the subscription RPCs over Connect/gRPC.
package ports

import (
	"context"
	"time"

	"connectrpc.com/connect"

	subscriptionv1 "bidradar/gen/subscription/v1"
	"bidradar/gen/subscription/v1/subscriptionv1connect"
	"bidradar/pkg/apperr"
	"bidradar/pkg/authn"
	"bidradar/services/subscription/internal/app"
	"bidradar/services/subscription/internal/domain"
)

// Handler serves the subscription RPCs on top of the use cases.
type Handler struct {
	subscriptionv1connect.UnimplementedSubscriptionServiceHandler
	app *app.App
}

// NewHandler wires the handler to the use cases.
func NewHandler(a *app.App) *Handler { return &Handler{app: a} }

// ListTiers lists the tiers: with include_all every tier, else the paid ones.
func (h *Handler) ListTiers(ctx context.Context, req *connect.Request[subscriptionv1.ListTiersRequest]) (*connect.Response[subscriptionv1.ListTiersResponse], error) {
	userID := ""
	if c, ok := authn.FromContext(ctx); ok {
		userID = c.UserID
	}
	plan, err := h.app.Current(ctx, userID)
	if err != nil {
		return nil, err
	}
	tiers, current, rank := plan.Tiers, plan.Tier.Name, plan.Tier.Rank
	lapsed := plan.Found && !plan.Sub.Active(h.app.Now())
	resp := &subscriptionv1.ListTiersResponse{CurrentTier: current, NeedsUpgrade: lapsed}
	for _, t := range tiers {
		if req.Msg.GetIncludeAll() || t.PriceMonthSatang > 0 {
			resp.TierDetails = append(resp.TierDetails, toProto(t))
		}
		if t.Rank > rank {
			resp.UpgradeOptions = append(resp.UpgradeOptions, toProto(t))
		}
	}
	return connect.NewResponse(resp), nil
}

// GetMySubscription returns the signed-in user's plan (free when none).
func (h *Handler) GetMySubscription(ctx context.Context, _ *connect.Request[subscriptionv1.GetMySubscriptionRequest]) (*connect.Response[subscriptionv1.GetMySubscriptionResponse], error) {
	claims, err := authn.Require(ctx)
	if err != nil {
		return nil, err
	}
	plan, err := h.app.Current(ctx, claims.UserID)
	if err != nil {
		return nil, err
	}
	now, tiers, tier, sub, current := h.app.Now(), plan.Tiers, plan.Tier, plan.Sub, plan.Tier.Name
	period := &subscriptionv1.SubscriptionPeriod{Status: "none"}
	if plan.Found {
		period = periodToProto(sub, tiers)
	}
	resp := &subscriptionv1.GetMySubscriptionResponse{
		Tier:                 tier.Name,
		TierLabel:            tier.Label,
		Price:                baht(tier.PriceMonthSatang),
		IsActive:             current == domain.FreeTier || sub.Active(now),
		DaysRemaining:        int32(sub.DaysRemaining(now)),
		CombinationLimits:    limitsToProto(tier.Limits),
		Features:             tier.Features.Keys(),
		ButtonStatusExamples: buttonStatus(tier.Limits),
		Subscription:         period,
	}
	used, err := h.app.Usage(ctx, claims.UserID)
	if err != nil {
		return nil, err
	}
	resp.Usage = &subscriptionv1.Usage{
		SearchCombinationToday:    int32(used[domain.KindSearchCombination+"/day"]),
		SearchCombinationMonth:    int32(used[domain.KindSearchCombination+"/month"]),
		DatabaseFilterSearchToday: int32(used[domain.KindDatabaseFilterSearch+"/day"]),
		ExploreLiveSearchToday:    int32(used[domain.KindExploreLiveSearch+"/day"]),
	}
	for _, t := range tiers {
		if t.Rank > tier.Rank {
			resp.UpgradeRecommendations = append(resp.UpgradeRecommendations, toProto(t))
		}
	}
	return connect.NewResponse(resp), nil
}

// buttonStatus tells the app which gated buttons to enable for this tier.
func buttonStatus(l domain.Limits) map[string]string {
	state := func(limit int) string {
		if limit == 0 {
			return "locked"
		}
		return "enabled"
	}
	return map[string]string{
		"search_combination":     state(l.SearchCombinationDay),
		"database_filter_search": state(l.DatabaseFilterSearch),
		"overnight_search_save":  state(l.OvernightSearchSave),
		"normal_search_save":     state(l.NormalSearchSave),
		"explore_live_search":    state(l.ExploreLiveSearch),
	}
}

func baht(satang int64) float64 { return float64(satang) / 100 }

func toProto(t domain.Tier) *subscriptionv1.Tier {
	return &subscriptionv1.Tier{
		Tier: t.Name, Label: t.Label, Rank: int32(t.Rank), Currency: "THB",
		Price: baht(t.PriceMonthSatang), PriceYearly: baht(t.PriceYearSatang()),
		CombinationLimits: limitsToProto(t.Limits), Features: t.Features.Keys(),
	}
}

func limitsToProto(l domain.Limits) *subscriptionv1.CombinationLimits {
	return &subscriptionv1.CombinationLimits{
		SearchCombination: int32(l.SearchCombinationDay), SearchCombinationMonth: int32(l.SearchCombinationMonth),
		DatabaseFilterSearch: int32(l.DatabaseFilterSearch), OvernightSearchSave: int32(l.OvernightSearchSave),
		ExploreLiveSearch: int32(l.ExploreLiveSearch), NormalSearchSave: int32(l.NormalSearchSave),
		WatchlistSize: int32(l.WatchlistSize), TeamSeats: int32(l.TeamSeats),
	}
}

func periodToProto(s domain.Subscription, tiers []domain.Tier) *subscriptionv1.SubscriptionPeriod {
	day := func(t *time.Time) string {
		if t == nil {
			return ""
		}
		return t.Format(time.DateOnly)
	}
	p := &subscriptionv1.SubscriptionPeriod{
		Status: s.Status, StartDate: s.StartDate.Format(time.DateOnly),
		EndDate: day(s.EndDate), LastPaymentDate: day(s.LastPaymentDate),
		Period: s.Period, Method: s.Method, CancelAtPeriodEnd: s.CancelAtPeriodEnd,
		AutoRenew: s.Status == "active" && s.Renews(), CanResume: s.ResumeRefusal() == nil,
	}
	if s.LastPaymentSatang != nil {
		v := baht(*s.LastPaymentSatang)
		p.LastPaymentAmount, p.LastPaymentAmountSatang = &v, s.LastPaymentSatang
	}
	if n := s.Next; n != nil && s.EndDate != nil {
		p.Next = &subscriptionv1.NextPlan{Tier: n.Tier, TierLabel: app.TierByName(tiers, n.Tier).Label,
			StartDate: s.EndDate.AddDate(0, 0, 1).Format(time.DateOnly), EndDate: n.EndDate.Format(time.DateOnly)}
	}
	return p
}

// ConsumeQuota checks and consumes units of a limit for the calling user, all
// windows at once (a day and a month for search combinations). amount 0 only
// reads.
// Callers forward the user's own token: a service cannot spend someone else's quota.
func (h *Handler) ConsumeQuota(ctx context.Context, req *connect.Request[subscriptionv1.ConsumeQuotaRequest]) (*connect.Response[subscriptionv1.ConsumeQuotaResponse], error) {
	claims, err := authn.Require(ctx)
	if err != nil {
		return nil, err
	}
	if u := req.Msg.GetUserId(); u != "" && u != claims.UserID {
		return nil, apperr.New(apperr.PermissionDenied, "quota-other-user", "Cannot use another user's quota")
	}
	use, err := h.app.ConsumeQuota(ctx, claims.UserID, req.Msg.GetKind(), int(req.Msg.GetAmount()))
	if err != nil {
		return nil, err
	}
	out := &subscriptionv1.ConsumeQuotaResponse{Allowed: use.Allowed, Detail: use.Detail,
		RemainingToday: int32(use.RemainingDay), RemainingMonth: int32(use.RemainingMonth)}
	return connect.NewResponse(out), nil
}

// GetEntitlements returns the tier in force for each user: its limits and
// features, which the projects and notification services enforce. Internal:
// other services call it for the users they act for.
func (h *Handler) GetEntitlements(ctx context.Context, req *connect.Request[subscriptionv1.GetEntitlementsRequest]) (*connect.Response[subscriptionv1.GetEntitlementsResponse], error) {
	users, tiers, err := h.app.Entitlements(ctx, req.Msg.GetUserIds())
	if err != nil {
		return nil, err
	}
	out := &subscriptionv1.GetEntitlementsResponse{Users: make([]*subscriptionv1.UserEntitlements, 0, len(users))}
	for _, u := range users {
		out.Users = append(out.Users, &subscriptionv1.UserEntitlements{UserId: u, Tier: toProto(tiers[u])})
	}
	return connect.NewResponse(out), nil
}
