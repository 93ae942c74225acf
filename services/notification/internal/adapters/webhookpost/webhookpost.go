// Package webhookpost sends the outgoing webhook requests of the
// notification service.
package webhookpost

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"

	"bidradar/services/notification/internal/domain"
)

// Client posts webhook requests: 10 s per attempt, no redirects followed
// (a receiver moving must be set again), and in production only to public
// addresses, so a user's URL cannot reach the services inside.
type Client struct{ http *http.Client }

// New returns the client; production refuses loopback, private, link-local,
// carrier-grade NAT and other non-public addresses (domain.PublicAddr) at
// connect time, after DNS, so a name pointing inside is refused too, and
// one whose answer changes after the URL was registered (DNS rebinding).
func New(production bool) *Client {
	d := &net.Dialer{Timeout: 5 * time.Second}
	if production {
		d.Control = func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return err
			}
			if ip := ap.Addr(); !domain.PublicAddr(ip) {
				return fmt.Errorf("webhook address %s is not public", ip)
			}
			return nil
		}
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = d.DialContext
	tr.Proxy = nil
	return &Client{http: &http.Client{
		Timeout:       10 * time.Second,
		Transport:     tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// Post implements domain.WebhookPoster.
func (c *Client) Post(ctx context.Context, url string, headers map[string]string, body []byte) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "BidRadar-Webhook/1")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		var ue interface{ Timeout() bool }
		if errors.As(err, &ue) && ue.Timeout() {
			return 0, errors.New("no answer within 10 s")
		}
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	return resp.StatusCode, nil
}
