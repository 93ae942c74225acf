package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"bidradar/pkg/queue"
	"bidradar/services/subscription/internal/domain"
)

// recordProviderCancel queues a provider cancel in the fulfilment's
// transaction, due at once (pkg/queue; the app's handlers call the
// provider). One job of each kind a subscription: a cancel now replaces a
// stop at the period's end still pending, and once a cancel now was asked
// for (even done) a stop at the period's end has nothing left to do.
func recordProviderCancel(ctx context.Context, tx pgx.Tx, pc domain.ProviderCancel, now time.Time) error {
	job := queue.Job{Kind: domain.JobCancelNow, Key: pc.SubscriptionID, Destination: domain.ProviderDestination, Due: now}
	if pc.AtPeriodEnd {
		asked, err := queue.Exists(ctx, tx, domain.JobCancelNow, pc.SubscriptionID)
		if err != nil || asked {
			return err
		}
		job.Kind = domain.JobCancelAtPeriodEnd
	}
	if err := queue.Enqueue(ctx, tx, job); err != nil {
		return fmt.Errorf("record provider cancel: %w", err)
	}
	if pc.AtPeriodEnd {
		return nil
	}
	return queue.Cancel(ctx, tx, domain.JobCancelAtPeriodEnd, []string{pc.SubscriptionID}, "replaced by a cancel now")
}
