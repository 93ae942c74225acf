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
