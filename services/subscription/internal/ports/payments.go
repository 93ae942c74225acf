package ports

import (
	"context"
	"strings"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/timestamppb"

	subscriptionv1 "bidradar/gen/subscription/v1"
	"bidradar/pkg/apperr"
	"bidradar/pkg/authn"
	"bidradar/pkg/freetext"
	"bidradar/services/subscription/internal/app"
	"bidradar/services/subscription/internal/domain"
)

// CreateCheckout is POST /payment/checkout.
func (h *Handler) CreateCheckout(ctx context.Context, req *connect.Request[subscriptionv1.CreateCheckoutRequest]) (*connect.Response[subscriptionv1.CreateCheckoutResponse], error) {
	claims, err := authn.Require(ctx)
	if err != nil {
		return nil, err
	}
	key := strings.TrimSpace(req.Header().Get("Idempotency-Key"))
	if len(key) > 200 || !freetext.Valid(key, freetext.SingleLine) {
		return nil, apperr.New(apperr.InvalidArgument, "idempotency-key", "Idempotency-Key must be printable text of 200 characters at most")
	}
	email, err := h.app.AccountEmail(ctx, claims.UserID, claims.Email, claims.IssuedAt)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	buyer := domain.BuyerChoice{ReceiptOnly: m.GetReceiptOnly()}
	if b := m.GetBuyer(); b != nil {
		p := profileFromProto(b)
		buyer.Buyer = &p
	}
	s, err := h.app.CheckoutFor(ctx, claims.UserID, email, m.GetTier(), m.GetPeriod(), m.GetMethod(), key, buyer)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&subscriptionv1.CreateCheckoutResponse{CheckoutUrl: s.URL, SessionId: s.ID}), nil
}

// HandleProviderEvent receives a provider webhook from the gateway.
func (h *Handler) HandleProviderEvent(ctx context.Context, req *connect.Request[subscriptionv1.HandleProviderEventRequest]) (*connect.Response[subscriptionv1.HandleProviderEventResponse], error) {
	if err := h.app.Webhook(ctx, req.Msg.GetPayload(), req.Msg.GetSignature()); err != nil {
		return nil, err
	}
	return connect.NewResponse(&subscriptionv1.HandleProviderEventResponse{Received: true}), nil
}

// ListPayments is GET /users/me/payments.
func (h *Handler) ListPayments(ctx context.Context, _ *connect.Request[subscriptionv1.ListPaymentsRequest]) (*connect.Response[subscriptionv1.ListPaymentsResponse], error) {
	claims, err := authn.Require(ctx)
	if err != nil {
		return nil, err
	}
	ps, err := h.app.Payments(ctx, claims.UserID)
	if err != nil {
		return nil, err
	}
	out := &subscriptionv1.ListPaymentsResponse{}
	for _, p := range ps {
		out.Payments = append(out.Payments, &subscriptionv1.Payment{
			PaymentId: p.ID, Tier: p.Tier, Amount: baht(p.AmountSatang), AmountSatang: p.AmountSatang, Currency: "THB",
			Status: p.Status, Method: p.Method, Period: p.Period, ReceiptNo: p.ReceiptNo, ReceiptNumber: p.ReceiptNumber,
			ReplacementNumber: p.ReplacementNumber, CreatedAt: timestamppb.New(p.CreatedAt),
		})
	}
	return connect.NewResponse(out), nil
}

func (h *Handler) localPB(ctx context.Context, c domain.Checkout) (*subscriptionv1.LocalCheckout, error) {
	plan, err := h.app.Current(ctx, "")
	if err != nil {
		return nil, err
	}
	return &subscriptionv1.LocalCheckout{SessionId: c.SessionID, Tier: c.Tier, TierLabel: app.TierByName(plan.Tiers, c.Tier).Label,
		Period: c.Period, Method: c.Method, Amount: baht(c.AmountSatang), Status: c.Status}, nil
}

// GetLocalCheckout is GET /payment/local/{session_id}.
func (h *Handler) GetLocalCheckout(ctx context.Context, req *connect.Request[subscriptionv1.GetLocalCheckoutRequest]) (*connect.Response[subscriptionv1.GetLocalCheckoutResponse], error) {
	claims, err := authn.Require(ctx)
	if err != nil {
		return nil, err
	}
	c, err := h.app.LocalCheckout(ctx, claims.UserID, req.Msg.GetSessionId())
	if err != nil {
		return nil, err
	}
	pb, err := h.localPB(ctx, c)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&subscriptionv1.GetLocalCheckoutResponse{Checkout: pb}), nil
}

// CompleteLocalCheckout is POST /payment/local/{session_id}/complete.
func (h *Handler) CompleteLocalCheckout(ctx context.Context, req *connect.Request[subscriptionv1.CompleteLocalCheckoutRequest]) (*connect.Response[subscriptionv1.CompleteLocalCheckoutResponse], error) {
	claims, err := authn.Require(ctx)
	if err != nil {
		return nil, err
	}
	var paid bool
	switch req.Msg.GetOutcome() {
	case "paid":
		paid = true
	case "failed":
	default:
		return nil, apperr.New(apperr.InvalidArgument, "local-outcome", "outcome must be paid or failed")
	}
	c, err := h.app.CompleteLocal(ctx, claims.UserID, req.Msg.GetSessionId(), paid)
	if err != nil {
		return nil, err
	}
	pb, err := h.localPB(ctx, c)
	if err != nil {
		return nil, err
	}
	msg := "Payment successful"
	if !paid {
		msg = "Payment failed"
	}
	return connect.NewResponse(&subscriptionv1.CompleteLocalCheckoutResponse{Message: msg, Checkout: pb}), nil
}
