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
// delivery (the last one repeats). They are used both for Nak delays and as
// the consumer's ack-timeout BackOff.
var RetryDelays = []time.Duration{
	1 * time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 30 * time.Second,
	1 * time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute,
}

// Consume creates or updates the durable pull consumer durable on stream
// (explicit acks, MaxDeliver 10, BackOff RetryDelays, filtered on subjects
// when given) and runs handle for each message in its own goroutine, one
// message at a time. The trace context in the message headers becomes the
// parent of a consumer span whose context is passed to handle.
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
	cfg := jetstream.ConsumerConfig{
		Durable:       durable,
		AckPolicy:     jetstream.AckExplicitPolicy,
		DeliverPolicy: jetstream.DeliverAllPolicy,
		MaxDeliver:    MaxDeliver,
		BackOff:       RetryDelays,
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
	log = log.With("stream", stream, "consumer", durable)
	tracer := otel.Tracer(tracerName)

	deadLetter := func(ctx context.Context, msg jetstream.Msg, reason string) {
		out := nats.NewMsg(DeadLetterPrefix + "." + stream + "." + durable)
		out.Data = msg.Data()
		for k, v := range msg.Headers() {
			out.Header[k] = v
		}
		out.Header.Set("Bidradar-Original-Subject", msg.Subject())
		out.Header.Set("Bidradar-Dead-Reason", reason)
		if id := msg.Headers().Get(nats.MsgIdHdr); id != "" {
			out.Header.Set(nats.MsgIdHdr, "dead:"+durable+":"+id)
		}
		if _, err := js.PublishMsg(ctx, out); err != nil {
			log.ErrorContext(ctx, "dead-letter publish failed", "subject", msg.Subject(), "err", err)
		}
	}
	cc, err := cons.Consume(func(msg jetstream.Msg) {
		handleMsg(ctx, tracer, msg, handle, deadLetter, log)
	}, jetstream.ConsumeErrHandler(func(_ jetstream.ConsumeContext, err error) {
		if ctx.Err() == nil && !errors.Is(err, nats.ErrConnectionClosed) {
			log.WarnContext(ctx, "consume error", "err", err)
		}
	}))
	if err != nil {
		return nil, fmt.Errorf("events: consume %s on %s: %w", durable, stream, err)
	}
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
	}, nil
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

// ConsumeUntilDone runs Consume until ctx is done, retrying the consumer's
// creation every few seconds while NATS or the stream is not there yet (a
// service starts before its dependencies without failing).
func ConsumeUntilDone(ctx context.Context, js jetstream.JetStream, stream, durable string, subjects []string, handle Handler, log *slog.Logger) {
	if log == nil {
		log = slog.Default()
	}
	for wait := time.Second; ; wait = min(2*wait, 30*time.Second) {
		stop, err := Consume(ctx, js, stream, durable, subjects, handle, log)
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
