package runner

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go/jetstream"

	"bidradar/pkg/events"
	"bidradar/pkg/outbox"
)

// Events describes a service's side of NATS.
type Events struct {
	// Name is the service's: the connection's name, and the publisher of
	// the events its proto package declares (their streams are ensured,
	// and its outbox relayed to them).
	Name string
	// Forget erases a deleted user's data (auth.v1.UserDeactivated);
	// nil when the service keeps none.
	Forget ForgetUser
	// Consumers are the service's durable consumers of other services'
	// events, one typed handler per event type, e.g.
	//
	//	events.Durable("subscription-emails", events.On(h.EmailChanged))
	//
	// Each is started and stopped with the service.
	Consumers []events.Consumer
}

// ConnectEvents connects to url and, while the server serves: follows auth's
// ended sessions, erases deleted users' data with e.Forget, runs
// e.Consumers, and relays the service's outbox in pool to its streams. It
// returns the JetStream for anything else the service does with it. It
// fails for a consumer that cannot run (an event type its proto does not
// declare, a durable reading several streams).
func (s *RPCServer) ConnectEvents(ctx context.Context, url string, pool *pgxpool.Pool, e Events) (jetstream.JetStream, error) {
	nc, js, err := events.Connect(url, e.Name)
	if err != nil {
		return nil, err
	}
	s.OnClose(func() { _ = nc.Drain() })
	if err := events.Produce(ctx, js, e.Name); err != nil {
		return nil, err
	}
	if err := s.FollowEndedSessions(js); err != nil {
		return nil, err
	}
	consumers := e.Consumers
	if e.Forget != nil {
		consumers = append([]events.Consumer{ForgetConsumer(e.Name, e.Forget)}, consumers...)
	}
	for _, c := range consumers {
		if err := s.Consume(ctx, js, c); err != nil {
			return nil, err
		}
	}
	relay := outbox.NewRelay(pool, js, s.log, outbox.RelayOptions{})
	s.Background(func(ctx context.Context) {
		if err := relay.Run(ctx); err != nil && ctx.Err() == nil {
			s.log.ErrorContext(ctx, "outbox relay stopped", "err", err)
		}
	})
	return js, nil
}

// Consume prepares c (its streams, the dead letters') and runs it while the
// server serves.
func (s *RPCServer) Consume(ctx context.Context, js jetstream.JetStream, c events.Consumer) error {
	if err := c.Prepare(ctx, js); err != nil {
		return err
	}
	s.Background(func(ctx context.Context) { c.Run(ctx, js, s.log) })
	return nil
}
