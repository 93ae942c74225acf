package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"bidradar/pkg/mail"
	"bidradar/services/auth/internal/app"
)

// MailMaxAttempts is how often a message is tried before it is given up.
const MailMaxAttempts = 8

// mailBackoff is the wait after a failed attempt: 2 s, 4 s, … up to 10 min.
func mailBackoff(attempts int) time.Duration {
	d := 2 * time.Second << min(attempts-1, 9)
	return min(d, 10*time.Minute)
}

// NewMailQueue returns the auth service's e-mail outbox (mail_outbox, its
// migration 00003): Enqueue is one INSERT, so a request takes the same time
// whether or not it sends mail; codes are retried fast and erased once sent.
func NewMailQueue(pool *pgxpool.Pool) *mail.Queue {
	return mail.NewQueue(pool, mail.Policy{
		MaxAttempts: MailMaxAttempts, Backoff: mailBackoff, Lease: 2 * time.Minute,
	})
}

// Mailbox is the app's mail queue on NewMailQueue: Send queues a message,
// DeliverDue sends the due ones.
type Mailbox struct {
	q    *mail.Queue
	pool *pgxpool.Pool
}

var (
	_ app.Mailer     = Mailbox{}
	_ app.MailOutbox = Mailbox{}
)

// NewMailbox returns the Mailbox of pool.
func NewMailbox(pool *pgxpool.Pool) Mailbox { return Mailbox{NewMailQueue(pool), pool} }

// Send implements app.Mailer: it queues m, due now.
func (b Mailbox) Send(ctx context.Context, m app.Mail) error {
	return b.q.Enqueue(ctx, b.pool, mail.Message{To: m.To, Subject: m.Subject, Text: m.Text, HTML: m.HTML})
}

// DeliverDue implements app.MailOutbox.
func (b Mailbox) DeliverDue(ctx context.Context, limit int, now time.Time, send func(context.Context, app.Mail) error) (int, error) {
	return b.q.DeliverDue(ctx, limit, now, func(ctx context.Context, m mail.Message) error {
		return send(ctx, app.Mail{To: m.To, Subject: m.Subject, Text: m.Text, HTML: m.HTML})
	})
}
