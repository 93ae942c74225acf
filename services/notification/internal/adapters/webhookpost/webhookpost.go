// Package webhookpost sends the outgoing webhook requests of the
// notification service.
package webhookpost

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"syscall"
	"time"

	"bidradar/services/notification/internal/domain"
)

// Client posts webhook requests: 10 s per attempt, no redirects followed
// (a receiver moving must be set again), and only to public addresses
// unless the development flag allows others, so a user's URL cannot reach
// the services inside.
type Client struct{ http *http.Client }

// errNotPublic refuses a connection to a non-public address.
var errNotPublic = errors.New("webhook address is not public")

// New returns the client. Unless allowPrivate (the development flag), it
// refuses loopback, private, link-local, carrier-grade NAT and other
// non-public addresses (domain.PublicAddr) at connect time, after DNS, so
// a name pointing inside is refused too, and one whose answer changes
// after the URL was registered (DNS rebinding).
func New(allowPrivate bool) *Client {
	d := &net.Dialer{Timeout: 5 * time.Second}
	if !allowPrivate {
		d.Control = func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return err
			}
			if !domain.PublicAddr(ap.Addr()) {
				return errNotPublic
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
		return 0, &domain.WebhookError{Problem: domain.WebhookFailed, Cause: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "BidRadar-Webhook/1")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, &domain.WebhookError{Problem: problem(err), Cause: err}
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, &domain.WebhookError{Status: resp.StatusCode}
	}
	return resp.StatusCode, nil
}

// problem names what went wrong before an answer came.
func problem(err error) string {
	var (
		dns       *net.DNSError
		timeout   interface{ Timeout() bool }
		verify    *tls.CertificateVerificationError
		record    tls.RecordHeaderError
		alert     tls.AlertError
		unknownCA x509.UnknownAuthorityError
		hostname  x509.HostnameError
		invalid   x509.CertificateInvalidError
	)
	switch {
	case errors.Is(err, errNotPublic):
		return domain.WebhookNotAllowed
	case errors.As(err, &dns) && !dns.IsTimeout:
		return domain.WebhookNotFound
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &timeout) && timeout.Timeout():
		return domain.WebhookTimedOut
	case errors.Is(err, syscall.ECONNREFUSED):
		return domain.WebhookRefused
	case errors.As(err, &verify), errors.As(err, &record), errors.As(err, &alert),
		errors.As(err, &unknownCA), errors.As(err, &hostname), errors.As(err, &invalid),
		// net/http's words for a plain-http answer to the TLS handshake
		strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"):
		return domain.WebhookTLSFailed
	}
	return domain.WebhookFailed
}
