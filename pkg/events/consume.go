package events

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// ErrPermanent marks a handler error that retrying cannot fix (a malformed
// payload, a reference that will never exist). Wrap it, e.g.
// fmt.Errorf("decode: %w: %v", events.ErrPermanent, err); the message is
// then terminated instead of redelivered.
var ErrPermanent = errors.New("permanent event failure")

// Handler processes one event. A nil error acknowledges the message; an
// error wrapping ErrPermanent terminates it; any other error redelivers it
// later, at most MaxDeliver times in all.
type Handler func(ctx context.Context, subject, eventID string, data []byte) error

// MaxDeliver bounds the deliveries of one message to a consumer.
const MaxDeliver = 10

// RetryDelays are the redelivery delays after the 1st, 2nd, ... failed
// delivery (the last one repeats), asked for with each Nak.
var RetryDelays = []time.Duration{
	1 * time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 30 * time.Second,
	1 * time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute,
}

// AckWait is how long JetStream leaves a delivered message to its consumer
// before delivering it again (a crashed or hung replica). It is counted from
// the delivery to the client's buffer, not from the handler's start, so it
// must exceed the time the buffer (BufferedMessages) takes to drain: a
// backlog handled slower than that would be delivered a second time, its
// work done twice. Failures are retried sooner, with RetryDelays.
const AckWait = 2 * time.Minute

// PullHeartbeat is how often JetStream tells a waiting pull request it is
// alive. The client notices a request the server no longer holds only when
// two heartbeats are missing; with the client's default (half the 30 s
// expiry) a bulk import's instant alerts (then a consumer) stood still for 30 s, the
// consumer idle with 12 600 events waiting and no request on the server
// (bench/alerts, 2026-11-26). Every 2 s costs a small message per waiting
// request, and bounds such a stop to about 4 s.
const PullHeartbeat = 2 * time.Second

// BufferedMessages is how many messages a consumer's client pulls ahead of
// its handler.
const BufferedMessages = 100

func consumer(ctx context.Context, js jetstream.JetStream, stream, durable string, subjects []string) (jetstream.Consumer, error) {
	cfg := jetstream.ConsumerConfig{
		Durable:       durable,
		AckPolicy:     jetstream.AckExplicitPolicy,
		DeliverPolicy: jetstream.DeliverAllPolicy,
		MaxDeliver:    MaxDeliver,
		// No BackOff: with one, JetStream takes its first step as the ack
		// wait of a first delivery, and RetryDelays' 1 s redelivered any
		// backlog the handler had not reached within a second.
		AckWait:       AckWait,
		MaxAckPending: 1000,
	}
	switch len(subjects) {
	case 0:
	case 1:
		cfg.FilterSubject = subjects[0]
	default:
		cfg.FilterSubjects = subjects
	}
	cons, err := js.CreateOrUpdateConsumer(ctx, stream, cfg)
	if err != nil {
		return nil, fmt.Errorf("events: consumer %s on %s: %w", durable, stream, err)
	}
	return cons, nil
}

func deadLetterer(js jetstream.JetStream, stream, durable string, log *slog.Logger) func(context.Context, jetstream.Msg, string) {
	return func(ctx context.Context, msg jetstream.Msg, reason string) {
		out := nats.NewMsg(deadLetterSubject(stream, durable))
		out.Data = msg.Data()
		for k, v := range msg.Headers() {
			out.Header[k] = v
		}
		out.Header.Set(hdrOriginalSubject, msg.Subject())
		out.Header.Set(hdrDeadReason, reason)
		if id := msg.Headers().Get(nats.MsgIdHdr); id != "" {
			out.Header.Set(nats.MsgIdHdr, deadLetterIDPrefix(durable)+id)
		}
		if _, err := js.PublishMsg(ctx, out); err != nil {
			log.ErrorContext(ctx, "dead-letter publish failed", "subject", msg.Subject(), "err", err)
		}
	}
}

// Consume creates or updates the durable pull consumer durable on stream
// (explicit acks, MaxDeliver 10, AckWait, filtered on subjects when given)
// and runs handle for each message in its own goroutine, one message at a
// time. The trace context in the message headers becomes the parent of a
// consumer span whose context is passed to handle.
//
// Messages are acked when handle returns nil, terminated when its error
// wraps ErrPermanent (or on the last allowed delivery), and Nak'ed with a
// growing delay otherwise. Consumption stops when ctx is done or when stop is
// called; stop waits for the message being handled.
func Consume(ctx context.Context, js jetstream.JetStream, stream, durable string, subjects []string,
	handle func(ctx context.Context, subject, eventID string, data []byte) error, log *slog.Logger,
) (stop func(), err error) {
	if log == nil {
		log = slog.Default()
	}
	cons, err := consumer(ctx, js, stream, durable, subjects)
	if err != nil {
		return nil, err
	}
	log = log.With("stream", stream, "consumer", durable)
	tracer := otel.Tracer(tracerName)
	deadLetter := deadLetterer(js, stream, durable, log)
	cc, err := cons.Consume(func(msg jetstream.Msg) {
		handleMsg(ctx, tracer, msg, handle, deadLetter, log)
	}, jetstream.PullMaxMessages(BufferedMessages), jetstream.PullHeartbeat(PullHeartbeat), consumeErrors(ctx, log))
	if err != nil {
		return nil, fmt.Errorf("events: consume %s on %s: %w", durable, stream, err)
	}
	return stopper(ctx, cc), nil
}

func consumeErrors(ctx context.Context, log *slog.Logger) jetstream.PullConsumeOpt {
	return jetstream.ConsumeErrHandler(func(_ jetstream.ConsumeContext, err error) {
		if ctx.Err() == nil && !errors.Is(err, nats.ErrConnectionClosed) {
			log.WarnContext(ctx, "consume error", "err", err)
		}
	})
}

// stopper stops cc when ctx is done or stop is called, and returns once
// cc is closed.
func stopper(ctx context.Context, cc jetstream.ConsumeContext) (stop func()) {
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		select {
		case <-ctx.Done():
		case <-done:
		}
		cc.Stop()
		<-cc.Closed()
	}()
	var once sync.Once
	return func() {
		once.Do(func() { close(done) })
		<-stopped
	}
}

func handleMsg(ctx context.Context, tracer trace.Tracer, msg jetstream.Msg,
	handle func(ctx context.Context, subject, eventID string, data []byte) error,
	deadLetter func(context.Context, jetstream.Msg, string), log *slog.Logger,
) {
	subject := msg.Subject()
	eventID := msg.Headers().Get(nats.MsgIdHdr)
	if h := msg.Headers(); h != nil {
		ctx = Propagator.Extract(ctx, HeaderCarrier(h))
	}
	var delivered uint64 = 1
	if md, err := msg.Metadata(); err == nil {
		delivered = md.NumDelivered
	}
	ctx, span := tracer.Start(ctx, "process "+subject,
		trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithAttributes(
			attribute.String("messaging.system", "nats"),
			attribute.String("messaging.destination.name", subject),
			attribute.String("messaging.message.id", eventID),
			attribute.Int64("messaging.nats.delivered", int64(delivered)),
		))
	defer span.End()

	err := safeHandle(ctx, handle, subject, eventID, msg.Data())
	if err == nil {
		if aerr := msg.Ack(); aerr != nil {
			log.WarnContext(ctx, "event ack failed", "subject", subject, "event_id", eventID, "err", aerr)
		}
		return
	}
	span.RecordError(err)
	span.SetStatus(codes.Error, err.Error())
	switch {
	case errors.Is(err, ErrPermanent):
		log.ErrorContext(ctx, "event rejected permanently", "subject", subject, "event_id", eventID, "err", err)
		deadLetter(ctx, msg, "permanent failure: "+err.Error())
		_ = msg.TermWithReason("permanent failure")
	case delivered >= MaxDeliver:
		log.ErrorContext(ctx, "event dropped after max deliveries", "subject", subject, "event_id", eventID,
			"deliveries", delivered, "err", err)
		deadLetter(ctx, msg, "max deliveries: "+err.Error())
		_ = msg.TermWithReason("max deliveries")
	default:
		delay := RetryDelays[min(int(delivered)-1, len(RetryDelays)-1)]
		log.WarnContext(ctx, "event failed, will retry", "subject", subject, "event_id", eventID,
			"deliveries", delivered, "retry_in", delay.String(), "err", err)
		_ = msg.NakWithDelay(delay)
	}
}

// safeHandle turns a handler panic into an ordinary (retryable) error.
func safeHandle(ctx context.Context, handle func(ctx context.Context, subject, eventID string, data []byte) error,
	subject, eventID string, data []byte,
) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("events: handler panic: %v", r)
		}
	}()
	return handle(ctx, subject, eventID, data)
}

// untilDone runs what start starts until ctx is done, retrying the start
// every few seconds (up to 30 s) while NATS or the stream is not there yet
// (a service starts before its dependencies without failing).
func untilDone(ctx context.Context, stream, durable string, log *slog.Logger, start func() (func(), error)) {
	if log == nil {
		log = slog.Default()
	}
	for wait := time.Second; ; wait = min(2*wait, 30*time.Second) {
		stop, err := start()
		if err == nil {
			<-ctx.Done()
			stop()
			return
		}
		log.WarnContext(ctx, "consumer not started, retrying", "stream", stream, "consumer", durable, "err", err, "retry_in", wait.String())
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}
