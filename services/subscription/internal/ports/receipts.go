package ports

import (
	"context"
	"time"

	"connectrpc.com/connect"

	subscriptionv1 "bidradar/gen/subscription/v1"
	"bidradar/pkg/authn"
	"bidradar/services/subscription/internal/domain"
)

func profileToProto(p domain.Party) *subscriptionv1.BillingProfile {
	return &subscriptionv1.BillingProfile{Kind: p.Kind, Name: p.Name, TaxId: p.TaxID, HeadOffice: p.HeadOffice, Branch: p.Branch, Address: p.Address}
}

func profileFromProto(b *subscriptionv1.BillingProfile) domain.Party {
	return domain.Party{Kind: b.GetKind(), Name: b.GetName(), TaxID: b.GetTaxId(), HeadOffice: b.GetHeadOffice(), Branch: b.GetBranch(), Address: b.GetAddress()}
}

func partyToProto(p domain.Party) *subscriptionv1.Party {
	return &subscriptionv1.Party{Kind: p.Kind, Name: p.Name, TaxId: p.TaxID, HeadOffice: p.HeadOffice, Branch: p.Branch,
		Address: p.Address, BranchLabel: p.BranchLabel()}
}

// GetBillingProfile is GET /users/me/billing-profile.
func (h *Handler) GetBillingProfile(ctx context.Context, _ *connect.Request[subscriptionv1.GetBillingProfileRequest]) (*connect.Response[subscriptionv1.GetBillingProfileResponse], error) {
	claims, err := authn.Require(ctx)
	if err != nil {
		return nil, err
	}
	p, ok, err := h.app.BillingProfile(ctx, claims.UserID)
	if err != nil {
		return nil, err
	}
	out := &subscriptionv1.GetBillingProfileResponse{Exists: ok, Profile: profileToProto(p)}
	if !ok {
		out.Profile = &subscriptionv1.BillingProfile{Kind: domain.BuyerPerson, HeadOffice: true}
	}
	return connect.NewResponse(out), nil
}

// UpdateBillingProfile is PUT /users/me/billing-profile.
func (h *Handler) UpdateBillingProfile(ctx context.Context, req *connect.Request[subscriptionv1.UpdateBillingProfileRequest]) (*connect.Response[subscriptionv1.UpdateBillingProfileResponse], error) {
	claims, err := authn.Require(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	p, err := h.app.SaveBillingProfile(ctx, claims.UserID, domain.Party{Kind: m.GetKind(), Name: m.GetName(), TaxID: m.GetTaxId(),
		HeadOffice: m.GetHeadOffice(), Branch: m.GetBranch(), Address: m.GetAddress()})
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&subscriptionv1.UpdateBillingProfileResponse{
		Message: "บันทึกข้อมูลสำหรับออกใบเสร็จแล้ว ใช้กับการชำระเงินครั้งถัดไป", Profile: profileToProto(p)}), nil
}

// GetReceipt is GET /users/me/receipts/{number}: the owner's only.
func (h *Handler) GetReceipt(ctx context.Context, req *connect.Request[subscriptionv1.GetReceiptRequest]) (*connect.Response[subscriptionv1.GetReceiptResponse], error) {
	claims, err := authn.Require(ctx)
	if err != nil {
		return nil, err
	}
	r, err := h.app.Receipt(ctx, claims.UserID, req.Msg.GetNumber())
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&subscriptionv1.GetReceiptResponse{Receipt: receiptToProto(r)}), nil
}

// ReissueReceipt is POST /users/me/receipts/{number}/reissue.
func (h *Handler) ReissueReceipt(ctx context.Context, req *connect.Request[subscriptionv1.ReissueReceiptRequest]) (*connect.Response[subscriptionv1.ReissueReceiptResponse], error) {
	claims, err := authn.Require(ctx)
	if err != nil {
		return nil, err
	}
	var buyer *domain.Party
	if b := req.Msg.GetBuyer(); b != nil {
		p := profileFromProto(b)
		buyer = &p
	}
	r, err := h.app.ReissueReceipt(ctx, claims.UserID, req.Msg.GetNumber(), buyer)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&subscriptionv1.ReissueReceiptResponse{
		Message: "ออกใบกำกับภาษีฉบับแทนเลขที่ " + r.Number + " แล้ว ฉบับเดิมยังคงอยู่ตามเดิม", Receipt: receiptToProto(r)}), nil
}

func receiptToProto(r domain.Receipt) *subscriptionv1.Receipt {
	out := &subscriptionv1.Receipt{
		Number: r.Number, IssuedDate: r.IssuedDay().Format(time.DateOnly), Description: r.Description,
		Tier: r.Tier, Period: r.Period, Method: r.Method,
		AmountSatang: r.AmountSatang, VatSatang: r.VATSatang, BaseSatang: r.BaseSatang,
		Amount: baht(r.AmountSatang), Vat: baht(r.VATSatang), Base: baht(r.BaseSatang),
		VatRatePercent: domain.VATRatePercent, AmountWords: domain.BahtText(r.AmountSatang),
		Seller: partyToProto(r.Seller), Buyer: &subscriptionv1.Party{Email: r.BuyerEmail},
		BuyerHasProfile: r.Buyer != nil, PaymentId: r.PaymentID,
		ReplacesNumber: r.Replaces, ReplacedByNumber: r.ReplacedBy, CanReissue: r.CanReissue(),
	}
	if r.Replaces != "" {
		out.ReplacesIssuedDate = domain.DayOf(r.ReplacesIssuedAt).Format(time.DateOnly)
	}
	if r.Buyer != nil {
		out.Buyer = partyToProto(*r.Buyer)
		out.Buyer.Email = r.BuyerEmail
	}
	return out
}
