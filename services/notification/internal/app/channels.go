package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"bidradar/pkg/queue"
	"bidradar/services/notification/internal/domain"
)

var (
	errNoMail    = errors.New("e-mail is not configured")
	errNoLine    = errors.New("LINE is not configured")
	errNoWebhook = errors.New("webhooks are not configured")
	errNoContact = errors.New("no address for this channel")
)

// Jobs are the kinds of the service's queued work, for its queue worker
// (pkg/queue; safe on every replica): the e-mail, LINE and webhook
// deliveries. They run concurrently, a few at a time per destination (the
// SMTP server, LINE, each webhook host), so a webhook receiver that takes
// its full 10 s holds up its own messages, not the other users' e-mail
// and LINE messages.
func (a *App) Jobs() []queue.Kind {
	return []queue.Kind{
		{Name: domain.JobDelivery, Handle: a.deliver, MaxAttempts: domain.DeliveryAttempts, Backoff: domain.DeliveryBackoff},
		{Name: domain.JobDigest, Handle: a.sendDigest, MaxAttempts: domain.DeliveryAttempts, Backoff: domain.DeliveryBackoff},
	}
}

// sendDigest mails one recorded daily digest to its user's address as it
// is now; a failed send is retried like a delivery.
func (a *App) sendDigest(ctx context.Context, j queue.Attempt) error {
	var m domain.DigestMail
	if err := j.Decode(&m); err != nil {
		return err
	}
	if a.ch.Mail == nil || a.ch.Contacts == nil {
		return errNoMail // retried: the mailer may be configured on another replica
	}
	c, err := a.ch.Contacts.Contact(ctx, m.UserID)
	if err != nil {
		return err
	}
	if c.Email == "" {
		return queue.Permanent(errNoContact)
	}
	return a.ch.Mail.Mail(ctx, c.Email, m.Subject, m.Text)
}

// deliver sends one delivery (the job's key is its id) unless its user's
// plan no longer includes the channel. A failure is retried
// (domain.DeliveryRetries); a message that cannot be sent at all (no
// address, channel off or not in the plan) is given up at once.
func (a *App) deliver(ctx context.Context, j queue.Attempt) error {
	id, err := strconv.ParseInt(j.Key, 10, 64)
	if err != nil {
		return queue.Permanent(fmt.Errorf("delivery job key %q: %w", j.Key, err))
	}
	d, ok, err := a.store.Delivery(ctx, id)
	if err != nil || !ok {
		return err // gone with its user: nothing to send
	}
	err = a.inPlan(ctx, d)
	if err == nil {
		err = a.send(ctx, d)
	}
	switch {
	case err == nil:
		return nil
	case errors.Is(err, errNoMail), errors.Is(err, errNoLine), errors.Is(err, errNoWebhook), errors.Is(err, errNoContact), errors.Is(err, errNotInPlan):
		return queue.Permanent(err)
	}
	return failure(d, err)
}

// failure is the error a delivery keeps. The webhook's is shown to the user
// in its delivery log: only the poster's named problems (domain.Webhook…),
// never another error's text (a database's, a raw dial error).
func failure(d domain.Delivery, err error) error {
	var we *domain.WebhookError
	if d.Channel != domain.ChannelWebhook || errors.As(err, &we) {
		return err
	}
	return shownError{domain.WebhookFailed, err}
}

// shownError is an error whose text is shown instead of its cause's.
type shownError struct {
	shown string
	err   error
}

func (e shownError) Error() string { return e.shown }
func (e shownError) Unwrap() error { return e.err }

func (a *App) send(ctx context.Context, d domain.Delivery) error {
	if d.Channel == domain.ChannelWebhook {
		return a.sendWebhook(ctx, d)
	}
	if a.ch.Contacts == nil {
		return errNoContact
	}
	switch d.Channel {
	case domain.ChannelEmail:
		if a.ch.Mail == nil {
			return errNoMail
		}
		c, err := a.ch.Contacts.Contact(ctx, d.UserID)
		if err != nil {
			return err
		}
		if c.Email == "" {
			return errNoContact
		}
		subject, text := domain.Email(d.Notification, a.ch.PublicURL)
		return a.ch.Mail.Mail(ctx, c.Email, subject, text)
	case domain.ChannelLine:
		if a.ch.Line == nil {
			return errNoLine
		}
		to, err := a.lineID(ctx, d.UserID)
		if err != nil {
			return err
		}
		return a.ch.Line.Push(ctx, to, domain.LineText(d.Notification, a.ch.PublicURL), d.RetryKey)
	}
	return errNoContact
}

// sendWebhook POSTs the notification to the user's webhook, signed with
// its current secret; the delivery's retry key is the id header, the same
// on every attempt, so a receiver can drop a retry it already took.
func (a *App) sendWebhook(ctx context.Context, d domain.Delivery) error {
	if a.ch.Webhook == nil {
		return errNoWebhook
	}
	w, ok, err := a.store.GetWebhook(ctx, d.UserID)
	if err != nil {
		return err
	}
	if !ok {
		return errNoContact
	}
	body, err := domain.WebhookBody(d.Notification, a.ch.PublicURL)
	if err != nil {
		return err
	}
	ts := a.now().Unix()
	status, err := a.ch.Webhook.Post(ctx, w.URL, map[string]string{
		domain.HeaderWebhookDelivery:  d.RetryKey,
		domain.HeaderWebhookTimestamp: strconv.FormatInt(ts, 10),
		domain.HeaderWebhookSignature: domain.SignWebhook(w.Secret, ts, body),
	}, body)
	if serr := a.store.DeliveryStatus(ctx, d.ID, status); serr != nil && err == nil {
		err = serr
	}
	return err
}

// lineID is the LINE user to push to: the one the user proved through LINE
// Login or a link flow (auth's line_id1), never an id typed into the
// settings, which would let anyone have our LINE account message a stranger.
func (a *App) lineID(ctx context.Context, userID string) (string, error) {
	c, err := a.ch.Contacts.Contact(ctx, userID)
	if err != nil {
		return "", err
	}
	if c.LineID == "" {
		return "", errNoContact
	}
	return c.LineID, nil
}

// DigestHour is when the daily e-mail goes out (Asia/Bangkok).
const DigestHour = 7

// Bangkok is where our users' days begin.
var Bangkok = time.FixedZone("Asia/Bangkok", 7*3600)

// DigestWindow is the digest due at now: the day of the last 07:00 in
// Bangkok and the 24 hours before it.
func DigestWindow(now time.Time) (day, from, to time.Time) {
	l := now.In(Bangkok)
	to = time.Date(l.Year(), l.Month(), l.Day(), DigestHour, 0, 0, 0, Bangkok)
	if l.Before(to) {
		to = to.AddDate(0, 0, -1)
	}
	return time.Date(to.Year(), to.Month(), to.Day(), 0, 0, 0, 0, time.UTC), to.Add(-24 * time.Hour), to
}

// Digest records the daily e-mail due at now for every user who chose it
// and whose tier includes e-mail, and queues it (JobDigest, sent by the
// queue's worker with retries): one message however many notifications,
// once per user and day across replicas and restarts. It returns how many
// it queued.
func (a *App) Digest(ctx context.Context) (int, error) {
	if a.ch.Mail == nil || a.ch.Contacts == nil {
		return 0, nil
	}
	day, from, to := DigestWindow(a.now())
	due, err := a.store.DigestDue(ctx, day, from, to)
	if err != nil {
		return 0, err
	}
	users := make([]string, 0, len(due))
	for u := range due {
		users = append(users, u)
	}
	// Only the tiers with e-mail get the digest.
	allowed, err := a.digestAllowed(ctx, users)
	if err != nil {
		return 0, err
	}
	users = slices.DeleteFunc(users, func(u string) bool { return !allowed[u] })
	since := day.AddDate(0, 0, -domain.Fill20Days)
	steps, err := a.store.Fill20Steps(ctx, users, since)
	if err != nil {
		return 0, err
	}
	// Steps older than any digest will ask for (a margin for late digests).
	if err := a.store.PruneSteps(ctx, since.AddDate(0, 0, -10)); err != nil {
		return 0, err
	}
	sent := 0
	for _, user := range users {
		ns := due[user]
		c, err := a.ch.Contacts.Contact(ctx, user)
		if err != nil || c.Email == "" {
			continue // tried again on the next run of the day
		}
		subject, text := domain.DigestEmail(ns, steps[user], day, a.ch.PublicURL)
		ok, err := a.store.ClaimDigest(ctx, user, day, len(ns), a.now(), domain.DigestMail{UserID: user, Subject: subject, Text: text})
		if err != nil {
			return sent, err
		}
		if ok {
			sent++
		}
	}
	return sent, nil
}
