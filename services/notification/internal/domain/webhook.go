package domain

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"bidradar/pkg/apperr"
)

// ChannelWebhook is a team's outgoing webhook: every alert POSTed to its URL.
const ChannelWebhook = "webhook"

// Headers of a webhook request.
const (
	HeaderWebhookDelivery  = "X-BidRadar-Delivery"  // one id per alert, the same on every retry
	HeaderWebhookTimestamp = "X-BidRadar-Timestamp" // Unix seconds of the attempt
	HeaderWebhookSignature = "X-BidRadar-Signature" // "v1=" + hex HMAC-SHA256(secret, timestamp + "." + body)
)

// Webhook errors.
var (
	ErrInvalidWebhookURL = apperr.New(apperr.InvalidArgument, "invalid-webhook-url",
		"url must be an https:// address on the public internet, without user or password (at most 2048 characters)")
	ErrWebhookNotFound = apperr.New(apperr.NotFound, "webhook-not-found", "No webhook is set")
)

// Webhook is a user's outgoing webhook and its signing secret.
type Webhook struct {
	UserID, URL, Secret string
	CreatedAt           time.Time
}

// SecretHint is the end of the secret, to tell secrets apart.
func (w Webhook) SecretHint() string {
	if len(w.Secret) < 4 {
		return ""
	}
	return w.Secret[len(w.Secret)-4:]
}

// CleanWebhookURL checks a webhook address: https, no credentials in it,
// a host. A host written as an address must be a public one (PublicAddr)
// and localhost is refused; a name is checked again when the request
// connects, after DNS. allowPrivate (the development flag, never in
// production) lets plain http to the loopback and any https host through,
// for local receivers and tests.
func CleanWebhookURL(raw string, allowPrivate bool) (string, error) {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil || len(raw) > 2048 || u.User != nil || u.Host == "" || u.Hostname() == "" || u.Fragment != "" {
		return "", ErrInvalidWebhookURL
	}
	host := u.Hostname()
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && allowPrivate && isLoopback(host):
	default:
		return "", ErrInvalidWebhookURL
	}
	if !allowPrivate {
		if isLocalhost(host) {
			return "", ErrInvalidWebhookURL
		}
		if ip, err := netip.ParseAddr(host); err == nil && !PublicAddr(ip) {
			return "", ErrInvalidWebhookURL
		}
	}
	return u.String(), nil
}

func isLocalhost(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	return host == "localhost" || strings.HasSuffix(host, ".localhost")
}

func isLoopback(host string) bool {
	if isLocalhost(host) {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// nonPublic are the special-purpose blocks (RFC 6890 and its updates) a
// webhook must not reach besides what netip already names (loopback,
// link-local, multicast, unspecified, RFC 1918 and fc00::/7).
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // carrier-grade NAT (RFC 6598)
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // TEST-NET-1
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // TEST-NET-2
	netip.MustParsePrefix("203.0.113.0/24"),  // TEST-NET-3
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, and the broadcast address
	netip.MustParsePrefix("::/96"),           // IPv4-compatible (deprecated), :: and ::1 among them
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use NAT64 (RFC 8215)
	netip.MustParsePrefix("100::/64"),        // discard-only
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("fec0::/10"),       // site-local (deprecated)
}

// Blocks whose address carries an IPv4 one that is what gets reached.
var (
	nat64     = netip.MustParsePrefix("64:ff9b::/96") // well-known NAT64: the last 32 bits
	sixToFour = netip.MustParsePrefix("2002::/16")    // 6to4: bits 16 to 48
)

// PublicAddr reports whether ip is an address on the public internet, one
// a user's webhook may reach: not loopback, private (10/8, 172.16/12,
// 192.168/16, fc00::/7), link-local (169.254/16, fe80::/10), carrier-grade
// NAT (100.64/10), 0/8, multicast or another special-purpose block; an
// IPv4-mapped, NAT64 or 6to4 IPv6 address is judged by its IPv4 address.
func PublicAddr(ip netip.Addr) bool {
	ip = ip.WithZone("").Unmap()
	if ip.Is6() {
		b := ip.As16()
		switch {
		case nat64.Contains(ip):
			return PublicAddr(netip.AddrFrom4([4]byte(b[12:16])))
		case sixToFour.Contains(ip):
			return PublicAddr(netip.AddrFrom4([4]byte(b[2:6])))
		}
	}
	if !ip.IsValid() || !ip.IsGlobalUnicast() || ip.IsPrivate() || ip.IsLoopback() || ip.IsLinkLocalUnicast() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

// SignWebhook is the signature header of body sent at ts.
func SignWebhook(secret string, ts int64, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(strconv.FormatInt(ts, 10)))
	m.Write([]byte("."))
	m.Write(body)
	return "v1=" + hex.EncodeToString(m.Sum(nil))
}

// WebhookBody is the JSON a webhook receives for one notification.
func WebhookBody(n Notification, publicURL string) ([]byte, error) {
	type payload struct {
		ID        string `json:"id"`
		Title     string `json:"title"`
		Message   string `json:"message"`
		Category  string `json:"category"`
		Priority  string `json:"priority"`
		ProjectID string `json:"project_id,omitempty"`
		URL       string `json:"url"`
		CreatedAt string `json:"created_at"`
	}
	return json.Marshal(struct {
		Type         string  `json:"type"`
		Notification payload `json:"notification"`
	}{"notification", payload{
		ID: n.ID, Title: n.Title, Message: n.Message, Category: n.Category, Priority: n.Priority,
		ProjectID: n.ProjectID, URL: URL(publicURL, n.Link), CreatedAt: n.Created.UTC().Format(time.RFC3339),
	}})
}

// WebhookPoster sends one webhook request; status is the HTTP status (0
// when nothing answered) and err is set for anything but a 2xx: a
// *WebhookError, whose text is what the user is shown.
type WebhookPoster interface {
	Post(ctx context.Context, url string, headers map[string]string, body []byte) (status int, err error)
}

// Why a webhook request failed, in the few words the delivery log shows
// (the app translates them): never the raw dial, resolver or TLS error,
// which would name our network to whoever set the address.
const (
	WebhookNotAllowed = "address not allowed" // a loopback, private or other non-public address
	WebhookTimedOut   = "timed out"
	WebhookRefused    = "connection refused"
	WebhookNotFound   = "address not found" // the name does not resolve
	WebhookTLSFailed  = "TLS failed"
	WebhookFailed     = "connection failed" // anything else before an answer
)

// WebhookError is a failed webhook request: Problem is one of the phrases
// above, or Status the HTTP status of an answer other than 2xx. Cause is
// for logs only.
type WebhookError struct {
	Problem string
	Status  int
	Cause   error
}

// Error is the text the delivery log keeps and shows.
func (e *WebhookError) Error() string {
	if e.Status != 0 {
		return "HTTP " + strconv.Itoa(e.Status)
	}
	return e.Problem
}

// Unwrap returns the cause.
func (e *WebhookError) Unwrap() error { return e.Cause }

// WebhookDelivery is one line of the delivery log.
type WebhookDelivery struct {
	ID             int64
	NotificationID string
	Title          string
	Status         string // pending, sent, failed
	Attempts       int
	LastStatusCode int
	LastError      string
	CreatedAt      time.Time
	NextAttemptAt  time.Time
	SentAt         *time.Time
}
