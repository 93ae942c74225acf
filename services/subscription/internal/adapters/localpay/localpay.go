// Package localpay is the payment provider of `make run` without Stripe
// keys: a checkout leads to a page of ours (/payment/local/<session>) that
// shows the order and lets the user pay or fail; completion goes through the
// same fulfilment as Stripe's webhook.
package localpay

import (
	"context"

	"github.com/google/uuid"

	"bidradar/services/subscription/internal/domain"
)

// Provider implements domain.Provider locally.
type Provider struct{}

// Name implements domain.Provider.
func (Provider) Name() string { return domain.LocalProviderName }

// CreateCheckout implements domain.Provider.
func (Provider) CreateCheckout(_ context.Context, _ domain.Order, _ string) (domain.CheckoutSession, error) {
	id := "local_cs_" + uuid.NewString()
	return domain.CheckoutSession{ID: id, URL: "/payment/local/" + id, Provider: domain.LocalProviderName}, nil
}

// ParseEvent implements domain.Provider: nothing outside can sign for the local
// provider, so every webhook is refused.
func (Provider) ParseEvent([]byte, string) (domain.Event, error) {
	return domain.Event{}, domain.ErrBadSignature
}

// SetCancelAtPeriodEnd implements domain.Provider: local plans never renew.
func (Provider) SetCancelAtPeriodEnd(context.Context, string, bool) error { return nil }

// CancelNow implements domain.Provider: local plans have nothing to stop.
func (Provider) CancelNow(context.Context, string) error { return nil }
