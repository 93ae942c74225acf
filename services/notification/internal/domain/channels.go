package domain

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Channels beyond the bell.
const (
	ChannelEmail = "email"
	ChannelLine  = "line"
)

// Channels are where an alert of category goes besides the bell: e-mail
// when the user chose instant e-mail, LINE when linked and turned on, the
// webhook when one is set. A
// daily digest is sent by its own job, not per alert.
func (s Settings) Channels(category string) []string {
	if category == CategorySystemAlert || !s.Wants(category) {
		return nil
	}
	var out []string
	if s.EmailEnabled && s.EmailDigest == "instant" {
		out = append(out, ChannelEmail)
	}
	if s.LineEnabled {
		out = append(out, ChannelLine)
	}
	if s.Webhook {
		out = append(out, ChannelWebhook)
	}
	return out
}

// Delivery is one e-mail, LINE message or webhook request of a
// notification. It is sent as a job of the queue (pkg/queue, kind
// JobDelivery, keyed by the delivery's id), which keeps its attempts.
type Delivery struct {
	ID           int64
	UserID       string
	Channel      string
	RetryKey     string
	Notification Notification
}

// JobDelivery is the queue kind of the deliveries.
const JobDelivery = "notification.delivery"

// JobDigest is the queue kind of the daily e-mail digests, keyed by user
// and day: written in the transaction that records the digest, so a digest
// recorded is a digest sent (with DeliveryRetries), never lost to a failed
// send.
const JobDigest = "notification.digest"

// DigestMail is a digest job's payload: the message as composed when the
// digest was recorded (the address is looked up when it is sent).
type DigestMail struct {
	UserID  string `json:"user_id"`
	Subject string `json:"subject"`
	Text    string `json:"text"`
}

// DeliveryRetries are the waits after each failed attempt; after the last
// the delivery is given up (and stays recorded with its error).
var DeliveryRetries = []time.Duration{time.Minute, 5 * time.Minute, 15 * time.Minute, time.Hour, 3 * time.Hour}

// DeliveryAttempts is how many attempts a delivery gets: one, then one
// after each of DeliveryRetries.
var DeliveryAttempts = len(DeliveryRetries) + 1

// DeliveryBackoff is the wait after the attempts-th failure.
func DeliveryBackoff(attempts int) time.Duration {
	return DeliveryRetries[min(max(attempts, 1), len(DeliveryRetries))-1]
}

// DeliveryDestination is the receiver a delivery talks to, for the queue's
// per-destination limit: the SMTP server, LINE's API, or the host of the
// user's webhook (one slow receiver fills only its own slots).
func DeliveryDestination(channel, webhookURL string) string {
	if channel != ChannelWebhook {
		return channel
	}
	host := ""
	if u, err := url.Parse(webhookURL); err == nil {
		host = strings.ToLower(u.Hostname())
	}
	return "webhook:" + host
}

// Contact is where a user's messages go (from the auth service).
type Contact struct {
	Email  string
	LineID string // LINE user id from LINE login (line_id1)
}

// Contacts looks users up.
type Contacts interface {
	Contact(ctx context.Context, userID string) (Contact, error)
}

// Mailer sends one e-mail.
type Mailer interface {
	Mail(ctx context.Context, to, subject, text string) error
}

// LinePusher sends one LINE Messaging API push; the same retryKey on every
// attempt makes LINE accept it once.
type LinePusher interface {
	Push(ctx context.Context, to, text, retryKey string) error
}

// URL is a link of the app made absolute with its public origin.
func URL(publicURL, link string) string {
	if link == "" {
		return strings.TrimRight(publicURL, "/") + "/notifications"
	}
	if strings.HasPrefix(link, "http://") || strings.HasPrefix(link, "https://") {
		return link
	}
	return strings.TrimRight(publicURL, "/") + link
}

// Email is the Thai e-mail of one notification.
func Email(n Notification, publicURL string) (subject, text string) {
	subject = "BidRadar: " + n.Title
	text = fmt.Sprintf("%s\n\n%s\n\nดูรายละเอียด: %s\n\n—\nคุณได้รับอีเมลนี้เพราะเปิดการแจ้งเตือนทางอีเมลไว้ เปลี่ยนได้ที่ %s\n",
		n.Title, n.Message, URL(publicURL, n.Link), URL(publicURL, "/user-settings/notification-settings"))
	return subject, text
}

// LineText is the LINE message of one notification (LINE caps text at 5,000).
func LineText(n Notification, publicURL string) string {
	t := fmt.Sprintf("🔔 %s\n%s\n%s", n.Title, n.Message, URL(publicURL, n.Link))
	if r := []rune(t); len(r) > 4900 {
		t = string(r[:4900]) + "…"
	}
	return t
}

// Fill20Days is how far back a fill20 follower's digest lists step changes.
const Fill20Days = 20

// Step is one announcement step of a project.
type Step struct {
	EventID, ProjectID, ProjectName, TypeName string
	Day                                       string // ISO date of the announcement, "" when unknown
	SeenAt                                    time.Time
}

// DigestEmail is the one daily e-mail naming every notification of the day
// and, for projects followed with fill20, their steps of the last 20 days.
func DigestEmail(ns []Notification, steps []Step, day time.Time, publicURL string) (subject, text string) {
	subject = fmt.Sprintf("BidRadar: สรุปการแจ้งเตือนประจำวันที่ %s (%d รายการ)", ThaiDate(day.Format(time.DateOnly)), len(ns))
	var b strings.Builder
	fmt.Fprintf(&b, "การแจ้งเตือน %d รายการในรอบ 24 ชั่วโมงที่ผ่านมา\n\n", len(ns))
	for i, n := range ns {
		fmt.Fprintf(&b, "%d. %s\n   %s\n   %s\n\n", i+1, n.Title, n.Message, URL(publicURL, n.Link))
	}
	if len(steps) > 0 {
		fmt.Fprintf(&b, "ความเคลื่อนไหวของโครงการที่ติดตาม (%d วันล่าสุด)\n\n", Fill20Days)
		for i, s := range steps {
			if i == 0 || steps[i-1].ProjectID != s.ProjectID {
				fmt.Fprintf(&b, "• %s (%s)\n  %s\n", s.ProjectName, s.ProjectID, URL(publicURL, ProjectLink(s.ProjectID)))
			}
			when := ThaiDate(s.Day)
			if when == "" {
				when = ThaiDate(s.SeenAt.In(time.FixedZone("ICT", 7*3600)).Format(time.DateOnly))
			}
			fmt.Fprintf(&b, "  - %s: %s\n", when, s.TypeName)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "—\nเปลี่ยนการตั้งค่าได้ที่ %s\n", URL(publicURL, "/user-settings/notification-settings"))
	return subject, b.String()
}
