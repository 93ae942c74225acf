package app

import (
	"context"

	"bidradar/services/subscription/internal/domain"
)

// BillingProfile returns the user's billing profile (ok = false when none).
func (a *App) BillingProfile(ctx context.Context, userID string) (domain.Party, bool, error) {
	return a.store.BillingProfile(ctx, userID)
}

// SaveBillingProfile validates (tax id check digit, branch) and stores the
// profile the next receipts are made out to.
func (a *App) SaveBillingProfile(ctx context.Context, userID string, p domain.Party) (domain.Party, error) {
	p, err := domain.NormalizeProfile(p)
	if err != nil {
		return p, err
	}
	return p, a.store.SaveBillingProfile(ctx, userID, p, a.now())
}

// Receipt returns one of the user's receipts; another user's is not found.
func (a *App) Receipt(ctx context.Context, userID, number string) (domain.Receipt, error) {
	if len(number) > 40 {
		return domain.Receipt{}, domain.ErrNoReceipt
	}
	r, ok, err := a.store.Receipt(ctx, userID, number)
	if err != nil {
		return r, err
	}
	if !ok {
		return r, domain.ErrNoReceipt
	}
	return r, nil
}

// ReissueReceipt reissues the user's receipt number, issued without a
// buyer, as a replacement tax invoice (ใบกำกับภาษีฉบับแทน) naming buyer
// (checked, and saved as the billing profile), or the billing profile when
// buyer is nil. Once: a second reissue is refused with the replacement's
// number. The original stays as it was.
func (a *App) ReissueReceipt(ctx context.Context, userID, number string, buyer *domain.Party) (domain.Receipt, error) {
	if len(number) > 40 {
		return domain.Receipt{}, domain.ErrNoReceipt
	}
	// Refused before anything is saved: a receipt that cannot be reissued
	// leaves the profile alone.
	r, err := a.Receipt(ctx, userID, number)
	if err != nil {
		return r, err
	}
	if err := r.CheckReissue(); err != nil {
		return domain.Receipt{}, err
	}
	var p domain.Party
	if buyer == nil {
		var ok bool
		if p, ok, err = a.store.BillingProfile(ctx, userID); err != nil {
			return domain.Receipt{}, err
		} else if !ok {
			return domain.Receipt{}, domain.ErrBuyerRequired
		}
	} else if p, err = a.SaveBillingProfile(ctx, userID, *buyer); err != nil {
		return domain.Receipt{}, err
	}
	return a.store.ReissueReceipt(ctx, userID, number, p, a.now(), func(r domain.Receipt) domain.Mail { return domain.ReceiptMail(r, a.publicURL) })
}
