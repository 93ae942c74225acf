// Package plansclient asks the subscription service which channels each
// user's tier includes (subscription.v1.SubscriptionService/GetEntitlements,
// internal).
package plansclient

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
	"bidradar/services/notification/internal/domain"
)

// maxUsers is the most users one GetEntitlements call takes.
const maxUsers = 500

// Client implements domain.Plans.
type Client struct {
	rpc     subscriptionv1connect.SubscriptionServiceClient
	timeout time.Duration
}

// New returns a client for target (host:port, h2c) with a per-call timeout
// (0: 5 s); httpClient presents the service token GetEntitlements needs
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

// Channels implements domain.Plans, asking for at most 500 users a call.
func (c *Client) Channels(ctx context.Context, userIDs []string) (map[string]domain.PlanChannels, error) {
	out := make(map[string]domain.PlanChannels, len(userIDs))
	for part := range slices.Chunk(userIDs, maxUsers) {
		if err := c.ask(ctx, part, out); err != nil {
			return nil, errors.Join(domain.ErrPlansUnavailable, err)
		}
	}
	return out, nil
}

func (c *Client) ask(ctx context.Context, users []string, out map[string]domain.PlanChannels) error {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	res, err := c.rpc.GetEntitlements(ctx, connect.NewRequest(&subscriptionv1.GetEntitlementsRequest{UserIds: users}))
	if err != nil {
		return fmt.Errorf("get entitlements: %w", err)
	}
	for _, u := range res.Msg.GetUsers() {
		f := u.GetTier().GetFeatures()
		out[u.GetUserId()] = domain.PlanChannels{TierLabel: u.GetTier().GetLabel(),
			Email: slices.Contains(f, "email_alerts"), Line: slices.Contains(f, "line_alerts")}
	}
	return nil
}
