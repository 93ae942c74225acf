package notificationsvc

import (
	"context"
	"log/slog"
	"sync"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go/jetstream"

	"bidradar/pkg/events"
	"bidradar/pkg/outbox"
	"bidradar/services/notification/internal/adapters/postgres"
	"bidradar/services/notification/internal/adapters/searchowners"
	"bidradar/services/notification/internal/app"
	"bidradar/services/notification/internal/ports"
)

// SearchOwnersRPC is the projects service's GetSearchOwners, as the alerts
// call it to name the searches of a project.matched event.
type SearchOwnersRPC = searchowners.Lookup

// StartAlerts runs the service's alert path in the caller's process, for
// bench/alerts: the consumer of the projects' alerts (the same durable
// Build starts, with the bell only: no e-mail, LINE or webhook) over pool
// (from Open), and the relay of its outbox to js (the NotificationCreated
// events the realtime service pushes to each user's bell). owners answers
// the search lookups. stop ends both and waits for them.
func StartAlerts(ctx context.Context, pool *pgxpool.Pool, js jetstream.JetStream, owners SearchOwnersRPC, log *slog.Logger) (stop func(), err error) {
	if err := events.Produce(ctx, js, Spec.Name); err != nil {
		return nil, err
	}
	a := app.New(postgres.New(pool), nil)
	c := alertsConsumer(ports.NewEvents(a, searchowners.NewWith(owners, 0, nil)))
	if err := c.Prepare(ctx, js); err != nil {
		return nil, err
	}
	rctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); c.Run(rctx, js, log) }()
	go func() {
		defer wg.Done()
		if err := outbox.NewRelay(pool, js, log, outbox.RelayOptions{}).Run(rctx); err != nil {
			log.ErrorContext(rctx, "notification outbox relay", "err", err)
		}
	}()
	return func() { cancel(); wg.Wait() }, nil
}
