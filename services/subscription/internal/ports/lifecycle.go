package ports

import (
	"context"

	"connectrpc.com/connect"

	subscriptionv1 "bidradar/gen/subscription/v1"
	"bidradar/pkg/authn"
	"bidradar/services/subscription/internal/domain"
)

// CancelSubscription is POST /users/me/subscription/cancel.
func (h *Handler) CancelSubscription(ctx context.Context, _ *connect.Request[subscriptionv1.CancelSubscriptionRequest]) (*connect.Response[subscriptionv1.CancelSubscriptionResponse], error) {
	claims, err := authn.Require(ctx)
	if err != nil {
		return nil, err
	}
	s, err := h.app.Cancel(ctx, claims.UserID)
	if err != nil {
		return nil, err
	}
	p, err := h.period(ctx, s)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&subscriptionv1.CancelSubscriptionResponse{
		Message: "ยกเลิกการต่ออายุแล้ว ใช้งานได้ถึงวันที่ " + domain.ThaiDate(*s.EndDate), Subscription: p}), nil
}

// ResumeSubscription is POST /users/me/subscription/resume.
func (h *Handler) ResumeSubscription(ctx context.Context, _ *connect.Request[subscriptionv1.ResumeSubscriptionRequest]) (*connect.Response[subscriptionv1.ResumeSubscriptionResponse], error) {
	claims, err := authn.Require(ctx)
	if err != nil {
		return nil, err
	}
	s, err := h.app.Resume(ctx, claims.UserID)
	if err != nil {
		return nil, err
	}
	p, err := h.period(ctx, s)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&subscriptionv1.ResumeSubscriptionResponse{Message: "ต่ออายุอัตโนมัติตามเดิมแล้ว", Subscription: p}), nil
}

func (h *Handler) period(ctx context.Context, s domain.Subscription) (*subscriptionv1.SubscriptionPeriod, error) {
	tiers, err := h.app.Tiers(ctx)
	if err != nil {
		return nil, err
	}
	return periodToProto(s, tiers), nil
}
