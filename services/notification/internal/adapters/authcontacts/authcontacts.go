// Package authcontacts looks users' e-mail and LINE ids up in the auth
// service (its internal GetUser; the HTTP client presents this service's
// token, as for every internal RPC).
package authcontacts

import (
	"context"
	"net/http"
	"time"

	"connectrpc.com/connect"

	authv1 "bidradar/gen/auth/v1"
	"bidradar/gen/auth/v1/authv1connect"
	"bidradar/services/notification/internal/domain"
)

// Client implements domain.Contacts.
type Client struct {
	c       authv1connect.AuthServiceClient
	timeout time.Duration
}

// New returns a client of the auth service at target (host:port, h2c);
// httpClient presents the service token GetUser needs (runner's srv.Client()).
func New(httpClient *http.Client, target string) *Client {
	return &Client{c: authv1connect.NewAuthServiceClient(httpClient, "http://"+target), timeout: 5 * time.Second}
}

// Contact implements domain.Contacts.
func (c *Client) Contact(ctx context.Context, userID string) (domain.Contact, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	res, err := c.c.GetUser(ctx, connect.NewRequest(&authv1.GetUserRequest{UserId: userID}))
	if err != nil {
		return domain.Contact{}, err
	}
	u := res.Msg.GetUser()
	return domain.Contact{Email: u.GetEmail(), LineID: u.GetLineId1()}, nil
}
