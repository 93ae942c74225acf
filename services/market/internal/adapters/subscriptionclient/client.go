// Package subscriptionclient reads users' tiers from the subscription
// service (subscription.v1.SubscriptionService/GetEntitlements, internal).
package subscriptionclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"connectrpc.com/connect"

	subscriptionv1 "bidradar/gen/subscription/v1"
	"bidradar/gen/subscription/v1/subscriptionv1connect"
	"bidradar/services/market/internal/domain"
)

// Client implements domain.Plans.
type Client struct {
	rpc     subscriptionv1connect.SubscriptionServiceClient
	timeout time.Duration
}

// New returns a client for target (host:port, h2c); httpClient presents the
// service token (runner's srv.Client()).
func New(httpClient *http.Client, target string, timeout time.Duration) *Client {
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	return &Client{
		rpc:     subscriptionv1connect.NewSubscriptionServiceClient(httpClient, "http://"+target, connect.WithGRPC()),
		timeout: timeout,
	}
}

// Plan implements domain.Plans: the tier's features market_benchmarks and
// market_profiles and its watchlist_size (docs/market.md#tiers).
func (c *Client) Plan(ctx context.Context, userID string) (domain.Plan, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	res, err := c.rpc.GetEntitlements(ctx, connect.NewRequest(&subscriptionv1.GetEntitlementsRequest{UserIds: []string{userID}}))
	if err != nil {
		return domain.Plan{}, errors.Join(domain.ErrPlansUnavailable, fmt.Errorf("get entitlements: %w", err))
	}
	for _, u := range res.Msg.GetUsers() {
		t := u.GetTier()
		if u.GetUserId() != userID || t == nil {
			continue
		}
		return domain.Plan{Tier: t.GetTier(),
			Benchmarks:    slices.Contains(t.GetFeatures(), "market_benchmarks"),
			Profiles:      slices.Contains(t.GetFeatures(), "market_profiles"),
			WatchlistSize: int(t.GetCombinationLimits().GetWatchlistSize())}, nil
	}
	return domain.Plan{}, errors.Join(domain.ErrPlansUnavailable, fmt.Errorf("get entitlements: no answer for the user"))
}
