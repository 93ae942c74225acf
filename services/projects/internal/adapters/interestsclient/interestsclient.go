// Package interestsclient reads a user's marks and bids from the interests
// service (interests.v1.InterestsService GetFlags and ListProjectIdsByFlag,
// internal RPCs).
package interestsclient

import (
	"context"
	"math"
	"net/http"
	"time"

	"connectrpc.com/connect"

	interestsv1 "bidradar/gen/interests/v1"
	"bidradar/gen/interests/v1/interestsv1connect"
	"bidradar/services/projects/internal/domain"
)

// Client implements domain.Interests.
type Client struct {
	rpc     interestsv1connect.InterestsServiceClient
	timeout time.Duration
}

// New returns a client for target (host:port, h2c) with a per-call timeout;
// httpClient presents the service token the internal RPCs need
// (runner's srv.Client()).
func New(httpClient *http.Client, target string, timeout time.Duration, opts ...connect.ClientOption) *Client {
	if timeout <= 0 {
		timeout = 3 * time.Second
	}
	return &Client{
		rpc:     interestsv1connect.NewInterestsServiceClient(httpClient, "http://"+target, append([]connect.ClientOption{connect.WithGRPC()}, opts...)...),
		timeout: timeout,
	}
}

// Marks implements domain.Interests.
func (c *Client) Marks(ctx context.Context, userID string, ids []string) (map[string]domain.Marks, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	res, err := c.rpc.GetFlags(ctx, connect.NewRequest(&interestsv1.GetFlagsRequest{UserId: userID, ProjectIds: ids}))
	if err != nil {
		return nil, err
	}
	out := make(map[string]domain.Marks, len(res.Msg.Interests))
	for _, r := range res.Msg.Interests {
		out[r.IdProject] = domain.Marks{Like: r.IsUserLike, Follow: r.IsInterestToStepChk, Fill20: r.IsFill20,
			Bid: r.Is_InterestToBid, Archived: r.Archived, CommentCount: int(r.CommentCount),
			BidPrice: bidPrice(r), ReductionBP: hundredths(r.ReductionPercent)}
	}
	return out, nil
}

// bidPrice is the record's bid, from its exact satang (the baht only when
// an older interests service sends no satang).
func bidPrice(r *interestsv1.UserInterest) *domain.Money {
	switch {
	case r.BidPriceSatang != nil:
		m := domain.Money(*r.BidPriceSatang)
		return &m
	case r.BidPrice != nil:
		m := domain.Money(math.Round(*r.BidPrice * 100))
		return &m
	}
	return nil
}

// hundredths is a percent with two decimals in hundredths of a percent.
func hundredths(pct *float64) *int64 {
	if pct == nil {
		return nil
	}
	v := int64(math.Round(*pct * 100))
	return &v
}

// ProjectIDs implements domain.Interests.
func (c *Client) ProjectIDs(ctx context.Context, userID, flag string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	res, err := c.rpc.ListProjectIdsByFlag(ctx, connect.NewRequest(&interestsv1.ListProjectIdsByFlagRequest{UserId: userID, Flag: flag}))
	if err != nil {
		return nil, err
	}
	return res.Msg.ProjectIds, nil
}
