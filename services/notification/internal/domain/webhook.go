package domain

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net"
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
		"url must be an https:// address without user or password (at most 2048 characters)")
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
// a host. Outside production, plain http to the loopback is allowed too
// (local receivers, tests).
func CleanWebhookURL(raw string, production bool) (string, error) {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil || len(raw) > 2048 || u.User != nil || u.Host == "" || u.Hostname() == "" || u.Fragment != "" {
		return "", ErrInvalidWebhookURL
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && !production && isLoopback(u.Hostname()):
	default:
		return "", ErrInvalidWebhookURL
	}
	return u.String(), nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
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
// when nothing answered) and err is set for anything but a 2xx.
type WebhookPoster interface {
	Post(ctx context.Context, url string, headers map[string]string, body []byte) (status int, err error)
}

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
