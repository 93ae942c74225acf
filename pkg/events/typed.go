package events

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Meta is what a typed handler learns of an event besides its message.
type Meta struct {
	// Subject is the subject it arrived on.
	Subject string
	// EventID is its id: the Nats-Msg-Id it was published with, else the
	// message's own event_id. A redelivery or a replayed dead letter has
	// the same id: handlers recognise a repeat by it.
	EventID string
}

// Route hands the events of one declared type to a typed handler: see On.
type Route struct {
	typ    *Type
	err    error
	handle func(ctx context.Context, data []byte, m Meta) error
}

// On routes the events of T (a generated event message, e.g.
// *projectsv1.ProjectMatched) to handle. The message is decoded before
// handle runs; a payload that does not decode is a permanent failure
// (ErrPermanent: dead-lettered, never retried). T must be declared an event
// ((events.v1.event)); otherwise the consumer it is given to fails to start.
func On[T proto.Message](handle func(ctx context.Context, ev T, m Meta) error) Route {
	var zero T
	if any(zero) == nil {
		return Route{err: errors.New("events: On needs a concrete message type, not an interface")}
	}
	mt := zero.ProtoReflect().Type()
	t, err := TypeOf(zero)
	if err != nil {
		return Route{err: err}
	}
	return Route{typ: t, handle: func(ctx context.Context, data []byte, m Meta) error {
		ev := mt.New().Interface().(T)
		if err := proto.Unmarshal(data, ev); err != nil {
			return fmt.Errorf("decode %s: %w: %v", t.Name, ErrPermanent, err)
		}
		if m.EventID == "" {
			if e, ok := any(ev).(interface{ GetEventId() string }); ok {
				m.EventID = e.GetEventId()
			}
		}
		return handle(ctx, ev, m)
	}}
}

// routes is a set of Routes of one stream, one per event type.
type routes struct {
	rs     []Route
	stream string
}

func newRoutes(rs []Route) (routes, error) {
	if len(rs) == 0 {
		return routes{}, errors.New("events: a reader needs at least one handler (On)")
	}
	seen := map[protoreflect.FullName]bool{}
	out := routes{rs: rs}
	for _, r := range rs {
		if r.err != nil {
			return routes{}, r.err
		}
		if seen[r.typ.Name] {
			return routes{}, fmt.Errorf("events: two handlers of %s", r.typ.Name)
		}
		seen[r.typ.Name] = true
		if out.stream == "" {
			out.stream = r.typ.Stream
		} else if r.typ.Stream != out.stream {
			return routes{}, fmt.Errorf("events: %s is on stream %s, not %s: one reader reads one stream", r.typ.Name, r.typ.Stream, out.stream)
		}
	}
	return out, nil
}

// filters are the subjects to read, in the order of the routes.
func (rs routes) filters() []string {
	out := make([]string, len(rs.rs))
	for i, r := range rs.rs {
		out[i] = r.typ.Filter
	}
	return out
}

func (rs routes) names() []protoreflect.FullName {
	out := make([]protoreflect.FullName, len(rs.rs))
	for i, r := range rs.rs {
		out[i] = r.typ.Name
	}
	return out
}

// handle decodes an event for the route its subject belongs to. An event
// of a type none of the routes takes (a filter wider than the routes) is
// acknowledged and left alone.
func (rs routes) handle(ctx context.Context, subject, eventID string, data []byte) error {
	for _, r := range rs.rs {
		if r.typ.Matches(subject) {
			return r.handle(ctx, data, Meta{Subject: subject, EventID: eventID})
		}
	}
	return nil
}

// Consumer is a durable JetStream consumer: its name and the typed
// handlers of the events it reads, all of one stream. Build it with
// Durable; the runner (runner.Events.Consumers) starts and stops it with
// the service.
type Consumer struct {
	durable string
	routes  routes
	err     error
}

// Durable is the consumer named durable of the events that handlers take,
// e.g. Durable("subscription-emails", On(h.EmailChanged)). One durable may
// read several event types of one stream (a handler each); its filter
// subjects are theirs. The durable keeps its place across restarts, so
// renaming it reads its stream again from the start.
func Durable(durable string, handlers ...Route) Consumer {
	rs, err := newRoutes(handlers)
	if err == nil && (durable == "" || strings.ContainsAny(durable, ".*> ")) {
		err = fmt.Errorf("events: consumer name %q: want a name without '.', '*', '>' or spaces", durable)
	}
	if err != nil {
		err = fmt.Errorf("consumer %s: %w", durable, err)
	}
	return Consumer{durable: durable, routes: rs, err: err}
}

// Name is the durable's name.
func (c Consumer) Name() string { return c.durable }

// Stream is the stream it reads.
func (c Consumer) Stream() string { return c.routes.stream }

// Subjects are its filter subjects.
func (c Consumer) Subjects() []string { return c.routes.filters() }

// Err reports a consumer that cannot run (an undeclared event type, types
// of several streams, a bad name).
func (c Consumer) Err() error { return c.err }

// Handle decodes one message for its typed handler (a Handler).
func (c Consumer) Handle(ctx context.Context, subject, eventID string, data []byte) error {
	return c.routes.handle(ctx, subject, eventID, data)
}

// Prepare checks the consumer, ensures its stream and the dead letters'
// (EnsureStreams: a consumer may start before the producer), and records
// it among the process's readers under js's connection name (Readers).
func (c Consumer) Prepare(ctx context.Context, js jetstream.JetStream) error {
	if c.err != nil {
		return c.err
	}
	if err := EnsureStreams(ctx, js, c.routes.stream, StreamDeadLetter); err != nil {
		return err
	}
	record(js.Conn(), Reader{Kind: ReaderDurable, Durable: c.durable, Stream: c.routes.stream, Events: c.routes.names()})
	return nil
}

// Run consumes until ctx ends (see Consume for the acks, redelivery and
// dead letters), retrying the start every few seconds while NATS or the
// stream is not there.
func (c Consumer) Run(ctx context.Context, js jetstream.JetStream, log *slog.Logger) {
	if c.err != nil {
		return
	}
	untilDone(ctx, c.routes.stream, c.durable, log, func() (func(), error) {
		if err := EnsureStreams(ctx, js, c.routes.stream, StreamDeadLetter); err != nil {
			return nil, err
		}
		return Consume(ctx, js, c.routes.stream, c.durable, c.routes.filters(), c.Handle, log)
	})
}

// Follower reads events with an ordered consumer: no durable and no acks,
// every replica reads every event, from some time back at each start. For
// state every replica keeps in memory (the sessions auth ended).
type Follower struct {
	back   time.Duration
	routes routes
	err    error
}

// Follow is the follower of the events handlers take, starting back before
// the moment it (re)starts. Their handlers' errors, and payloads that do
// not decode, are logged and skipped.
func Follow(back time.Duration, handlers ...Route) Follower {
	rs, err := newRoutes(handlers)
	return Follower{back: back, routes: rs, err: err}
}

// Prepare checks the follower and records it among the process's readers.
func (f Follower) Prepare(js jetstream.JetStream) error {
	if f.err != nil {
		return f.err
	}
	record(js.Conn(), Reader{Kind: ReaderOrdered, Stream: f.routes.stream, Events: f.routes.names()})
	return nil
}

// Run follows until ctx ends, waiting quietly for a stream not created yet
// and starting again after a failure.
func (f Follower) Run(ctx context.Context, js jetstream.JetStream, log *slog.Logger) {
	if f.err != nil {
		return
	}
	if log == nil {
		log = slog.Default()
	}
	for ctx.Err() == nil {
		err := f.once(ctx, js, log)
		if ctx.Err() != nil {
			return
		}
		if !errors.Is(err, jetstream.ErrStreamNotFound) {
			log.WarnContext(ctx, "following events", "stream", f.routes.stream, "err", err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(followBackoff):
		}
	}
}

const followBackoff = 2 * time.Second

func (f Follower) once(ctx context.Context, js jetstream.JetStream, log *slog.Logger) error {
	start := time.Now().Add(-f.back)
	c, err := js.OrderedConsumer(ctx, f.routes.stream, jetstream.OrderedConsumerConfig{
		FilterSubjects: f.routes.filters(),
		DeliverPolicy:  jetstream.DeliverByStartTimePolicy,
		OptStartTime:   &start,
	})
	if err != nil {
		return err
	}
	cc, err := c.Consume(func(m jetstream.Msg) {
		if err := f.routes.handle(ctx, m.Subject(), m.Headers().Get(nats.MsgIdHdr), m.Data()); err != nil {
			log.WarnContext(ctx, "event skipped", "subject", m.Subject(), "err", err)
		}
	})
	if err != nil {
		return err
	}
	defer cc.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-cc.Closed():
		return errors.New("consumer closed")
	}
}

// Subscribe reads the events handlers take with one core NATS subscription:
// no stream, no acks, only what is published while it is subscribed (for
// hints such as a socket's live updates, whose truth is elsewhere), in the
// order published. Their handlers' errors, and payloads that do not decode,
// are logged and skipped. Unsubscribe (or drain the connection) to stop.
func Subscribe(nc *nats.Conn, log *slog.Logger, handlers ...Route) (*nats.Subscription, error) {
	rs, err := newRoutes(handlers)
	if err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.Default()
	}
	ctx := context.Background()
	sub, err := nc.Subscribe(cover(rs.filters()), func(m *nats.Msg) {
		if err := rs.handle(ctx, m.Subject, m.Header.Get(nats.MsgIdHdr), m.Data); err != nil {
			log.Warn("event skipped", "subject", m.Subject, "err", err)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("events: subscribe: %w", err)
	}
	record(nc, Reader{Kind: ReaderCore, Stream: rs.stream, Events: rs.names()})
	return sub, nil
}

// cover returns one subject filter matching every one of filters (several
// subscriptions would each have their own goroutine, and events of one
// user could overtake each other): tokens all filters share are kept, the
// others become "*"; filters of different lengths end in ">".
func cover(filters []string) string {
	split := make([][]string, len(filters))
	n, same := -1, true
	for i, f := range filters {
		split[i] = strings.Split(f, ".")
		if n >= 0 && len(split[i]) != n {
			same = false
		}
		if n < 0 || len(split[i]) < n {
			n = len(split[i])
		}
	}
	if !same {
		n-- // the last position becomes ">"
	}
	out := make([]string, 0, n+1)
	for i := 0; i < n; i++ {
		tok := split[0][i]
		for _, s := range split[1:] {
			if s[i] != tok {
				tok = "*"
			}
		}
		out = append(out, tok)
	}
	if !same {
		out = append(out, ">")
	}
	return strings.Join(out, ".")
}
