package postgres

import (
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"bidradar/pkg/mail"
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
