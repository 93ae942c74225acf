// Package events publishes and consumes domain events on NATS JetStream.
//
// Events are declared once, in the protos: every message of a service's
// events.proto carries the (events.v1.event) option naming its subject and
// stream, and this package reads it from the generated descriptors (TypeOf,
// SubjectOf, All, StreamSubjects). The outbox takes an event's subject from
// it; the streams are made from it (EnsureStreams, Produce); consumers are
// typed handlers (On) on a durable (Durable), an ordered follower (Follow)
// or a core subscription (Subscribe), their filters taken from it too.
//
// Beneath: an embedded server for development and tests, publishing with
// de-duplication ids and W3C trace context, durable explicit-ack consumers
// with bounded redelivery and dead letters (Consume), and an idempotency
// table for consumers (MarkProcessed).
package events

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

const tracerName = "bidradar/pkg/events"

// Propagator carries W3C trace context and baggage in NATS headers. It is
// used instead of the global propagator so that the traceparent travels even
// when the process has not configured OpenTelemetry.
var Propagator propagation.TextMapPropagator = propagation.NewCompositeTextMapPropagator(
	propagation.TraceContext{}, propagation.Baggage{})

// EmbeddedOptions configures StartEmbedded.
type EmbeddedOptions struct {
	// StoreDir is the JetStream storage directory (required).
	StoreDir string
	// Port is the client port on 127.0.0.1; -1 picks a random free port.
	// 0 means the NATS default port 4222.
	Port int
}

// StartEmbedded starts an in-process NATS server with JetStream, bound to
// 127.0.0.1 only, without signal handlers and without logging. It returns
// the server (call Shutdown and WaitForShutdown to stop it) and its client
// URL.
func StartEmbedded(opts EmbeddedOptions) (*server.Server, string, error) {
	if opts.StoreDir == "" {
		return nil, "", errors.New("events: EmbeddedOptions.StoreDir is required")
	}
	port := opts.Port
	if port == 0 {
		port = 4222
	}
	ns, err := server.NewServer(&server.Options{
		ServerName: "bidradar-embedded",
		Host:       "127.0.0.1",
		Port:       port,
		JetStream:  true,
		StoreDir:   opts.StoreDir,
		NoSigs:     true,
		NoLog:      true,
		HTTPPort:   0,
	})
	if err != nil {
		return nil, "", fmt.Errorf("events: new embedded server: %w", err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		ns.Shutdown()
		ns.WaitForShutdown()
		return nil, "", errors.New("events: embedded server not ready after 10s")
	}
	return ns, ns.ClientURL(), nil
}

// Connect connects to NATS at url under the client name name, reconnecting
// forever (every 2 s) after a connection loss, and returns the connection
// and a JetStream context. Close with nc.Drain() or nc.Close().
func Connect(url, name string) (*nats.Conn, jetstream.JetStream, error) {
	nc, err := nats.Connect(url,
		nats.Name(name),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(2*time.Second),
		nats.RetryOnFailedConnect(false),
		nats.Timeout(5*time.Second),
	)
	if err != nil {
		return nil, nil, fmt.Errorf("events: connect to %s: %w", url, err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, nil, fmt.Errorf("events: jetstream: %w", err)
	}
	return nc, js, nil
}

// Stream defaults applied by EnsureStream.
const (
	DuplicateWindow = 2 * time.Minute
	StreamMaxAge    = 14 * 24 * time.Hour
)

// streamReplicas is how many servers keep each stream (and, inheriting it,
// each durable consumer): 1 on one server, 3 on a three-node cluster.
var streamReplicas atomic.Int32

// SetStreamReplicas sets how many servers keep each stream and durable
// consumer this process creates (NATS_REPLICAS, read by runner.Main;
// docs/architecture.md#beyond-one-machine). Below 1 means 1.
func SetStreamReplicas(n int) { streamReplicas.Store(int32(max(n, 1))) }

// StreamReplicas is the count SetStreamReplicas set (1 by default).
func StreamReplicas() int { return int(max(streamReplicas.Load(), 1)) }

// EnsureStream creates the stream name over subjects, or updates it when it
// exists, its subjects replaced (EnsureStreams takes them from the
// declarations, and only adds): file storage, a 2-minute de-duplication
// window (Nats-Msg-Id), messages kept 14 days, on StreamReplicas servers
// (never fewer than the stream has: a process configured for fewer does
// not scale a cluster's stream down).
func EnsureStream(ctx context.Context, js jetstream.JetStream, name string, subjects []string) error {
	replicas := StreamReplicas()
	if s, err := js.Stream(ctx, name); err == nil {
		replicas = max(replicas, s.CachedInfo().Config.Replicas)
	}
	_, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Replicas:   replicas,
		Name:       name,
		Subjects:   subjects,
		Storage:    jetstream.FileStorage,
		Retention:  jetstream.LimitsPolicy,
		Duplicates: DuplicateWindow,
		MaxAge:     StreamMaxAge,
	})
	if err != nil {
		return fmt.Errorf("events: ensure stream %s: %w", name, err)
	}
	return nil
}

// Publish publishes payload on subject with Nats-Msg-Id = eventID (so that
// JetStream drops a re-publication within the duplicate window) and the W3C
// trace context of ctx in the headers, and waits for the stream's ack.
func Publish(ctx context.Context, js jetstream.JetStream, subject, eventID string, payload []byte) error {
	if eventID == "" {
		return errors.New("events: empty event id")
	}
	ctx, span := otel.Tracer(tracerName).Start(ctx, "publish "+subject,
		trace.WithSpanKind(trace.SpanKindProducer),
		trace.WithAttributes(
			attribute.String("messaging.system", "nats"),
			attribute.String("messaging.destination.name", subject),
			attribute.String("messaging.message.id", eventID),
		))
	defer span.End()
	msg := nats.NewMsg(subject)
	msg.Data = payload
	Propagator.Inject(ctx, HeaderCarrier(msg.Header))
	if _, err := js.PublishMsg(ctx, msg, jetstream.WithMsgID(eventID)); err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
		return fmt.Errorf("events: publish %s: %w", subject, err)
	}
	return nil
}

// HeaderCarrier adapts NATS headers to an OpenTelemetry TextMapCarrier.
// Unlike propagation.HeaderCarrier over http.Header, it writes the keys as
// given ("traceparent", lower case, as W3C spells them) because NATS headers
// are case-sensitive and non-Go clients look them up verbatim; Get matches
// keys case-insensitively so canonicalised "Traceparent" is read as well.
type HeaderCarrier nats.Header

var _ propagation.TextMapCarrier = HeaderCarrier(nil)

// Get returns the first value of key, matched case-insensitively.
func (h HeaderCarrier) Get(key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	for k, v := range h {
		if len(v) > 0 && strings.EqualFold(k, key) {
			return v[0]
		}
	}
	return ""
}

// Set replaces the values of key.
func (h HeaderCarrier) Set(key, value string) {
	h[key] = []string{value}
}

// Keys lists the header keys.
func (h HeaderCarrier) Keys() []string {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	return keys
}
