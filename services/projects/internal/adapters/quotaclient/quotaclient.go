// Package quotaclient asks the subscription service about tier limits: it
// consumes them (subscription.v1.SubscriptionService/ConsumeQuota) on
// behalf of the signed-in user, with the user's own access token since the
// subscription service spends only the caller's quota, and reads the
// user's plan (GetEntitlements, internal).
package quotaclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"connectrpc.com/connect"

	subscriptionv1 "bidradar/gen/subscription/v1"
	"bidradar/gen/subscription/v1/subscriptionv1connect"
	"bidradar/pkg/apperr"
	"bidradar/services/projects/internal/domain"
)

// Client implements domain.Quota and domain.Plans.
type Client struct {
	rpc     subscriptionv1connect.SubscriptionServiceClient
	timeout time.Duration
}

// New returns a client for target (host:port, h2c) with a per-call timeout;
// httpClient presents the service token the internal RPCs need
// (runner's srv.Client()).
func New(httpClient *http.Client, target string, timeout time.Duration) *Client {
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	return &Client{
		rpc:     subscriptionv1connect.NewSubscriptionServiceClient(httpClient, "http://"+target, connect.WithGRPC()),
		timeout: timeout,
	}
}

// Consume implements domain.Quota. A token the subscription service
// refuses is Unauthenticated; every other failure to get an answer
// (unreachable, timeout, its own errors) is domain.ErrQuotaUnavailable.
func (c *Client) Consume(ctx context.Context, caller domain.Caller, kind string, amount int) (domain.QuotaAnswer, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req := connect.NewRequest(&subscriptionv1.ConsumeQuotaRequest{UserId: caller.UserID, Kind: kind, Amount: int32(amount)})
	if caller.Token != "" {
		req.Header().Set("Authorization", "Bearer "+caller.Token)
	}
	res, err := c.rpc.ConsumeQuota(ctx, req)
	if err != nil {
		if connect.CodeOf(err) == connect.CodeUnauthenticated {
			return domain.QuotaAnswer{}, apperr.Wrap(err, apperr.Unauthenticated, "invalid-credentials", "Could not validate credentials")
		}
		return domain.QuotaAnswer{}, errors.Join(domain.ErrQuotaUnavailable, fmt.Errorf("consume quota %s: %w", kind, err))
	}
	m := res.Msg
	return domain.QuotaAnswer{
		Allowed: m.GetAllowed(), RemainingToday: int(m.GetRemainingToday()), RemainingMonth: int(m.GetRemainingMonth()),
		Detail: m.GetDetail(),
	}, nil
}

// Plan implements domain.Plans: the tier in force of userID with its
// saved-search numbers and features. Any failure to get an answer is
// domain.ErrQuotaUnavailable.
func (c *Client) Plan(ctx context.Context, userID string) (domain.Plan, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	res, err := c.rpc.GetEntitlements(ctx, connect.NewRequest(&subscriptionv1.GetEntitlementsRequest{UserIds: []string{userID}}))
	if err != nil {
		return domain.Plan{}, errors.Join(domain.ErrQuotaUnavailable, fmt.Errorf("get entitlements: %w", err))
	}
	for _, u := range res.Msg.GetUsers() {
		if u.GetUserId() != userID || u.GetTier() == nil {
			continue
		}
		t := u.GetTier()
		return domain.Plan{
			Tier: t.GetTier(), TierLabel: t.GetLabel(), Features: t.GetFeatures(),
			NormalSearchSave:    int(t.GetCombinationLimits().GetNormalSearchSave()),
			OvernightSearchSave: int(t.GetCombinationLimits().GetOvernightSearchSave()),
			ExploreLiveSearch:   int(t.GetCombinationLimits().GetExploreLiveSearch()),
		}, nil
	}
	return domain.Plan{}, errors.Join(domain.ErrQuotaUnavailable, fmt.Errorf("get entitlements: no answer for the user"))
}
