package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"bidradar/pkg/mail"
	"bidradar/services/auth/internal/domain"
)

// MailMaxAttempts is how often a message is tried before it is given up.
const MailMaxAttempts = 8

// mailBackoff is the wait after a failed attempt: 2 s, 4 s, … up to 10 min.
func mailBackoff(attempts int) time.Duration {
	d := 2 * time.Second << min(attempts-1, 9)
	return min(d, 10*time.Minute)
}

// MailPolicy is how the auth service retries its mail: codes are retried
// fast.
var MailPolicy = mail.Policy{MaxAttempts: MailMaxAttempts, Backoff: mailBackoff, Lease: 2 * time.Minute}

// NewMailQueue returns the auth service's mail in its job queue (pkg/queue):
// Enqueue is one INSERT, so a request takes the same time whether or not it
// sends mail; codes are erased once sent or given up.
func NewMailQueue(pool *pgxpool.Pool) *mail.Queue { return mail.NewQueue(pool, MailPolicy) }

// Mailbox is the app's Mailer on the queue: Send queues a message, due now.
type Mailbox struct {
	q    *mail.Queue
	pool *pgxpool.Pool
}

var _ domain.Mailer = Mailbox{}

// NewMailbox returns the Mailbox of pool.
func NewMailbox(pool *pgxpool.Pool) Mailbox { return Mailbox{NewMailQueue(pool), pool} }

// Send implements domain.Mailer: it queues m, due now.
func (b Mailbox) Send(ctx context.Context, m domain.Mail) error {
	return b.q.Enqueue(ctx, b.pool, mail.Message{To: m.To, Subject: m.Subject, Text: m.Text, HTML: m.HTML})
}
