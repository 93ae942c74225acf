package events

import (
	"context"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// ReaderKind says how a reader gets its events.
type ReaderKind string

// The kinds of readers.
const (
	// ReaderDurable: a durable consumer (Durable): explicit acks, bounded
	// redelivery, dead letters; each event is handled once across replicas.
	ReaderDurable ReaderKind = "durable"
	// ReaderOrdered: an ordered consumer (Follow): every replica reads
	// every event, from some time back at each start.
	ReaderOrdered ReaderKind = "ordered"
	// ReaderCore: a core NATS subscription (Subscribe): every replica,
	// only what is published while it listens.
	ReaderCore ReaderKind = "core"
)

// Reader is one reader of events wired in this process: who reads which
// events, and how. The table of consumers in docs/events.md is made of them.
type Reader struct {
	// Service is the name of the NATS connection it reads through (the
	// service's: events.Connect's name).
	Service string
	Kind    ReaderKind
	// Durable is the durable consumer's name (ReaderDurable only).
	Durable string
	Stream  string
	Events  []protoreflect.FullName
}

// Producer is a service that publishes its events in this process (its
// outbox relayed to its streams): see Produce.
type Producer struct {
	Service string
	Streams []string
}

var (
	registryMu sync.Mutex
	readers    = map[string]Reader{}
	producers  = map[string]Producer{}
)

func record(nc *nats.Conn, r Reader) {
	r.Service = nc.Opts.Name
	key := strings.Join([]string{r.Service, string(r.Kind), r.Durable, r.Stream, joinNames(r.Events)}, "|")
	registryMu.Lock()
	defer registryMu.Unlock()
	readers[key] = r
}

func joinNames(ns []protoreflect.FullName) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = string(n)
	}
	return strings.Join(s, ",")
}

// Readers returns the readers wired in this process so far (each once,
// however many times it was wired), sorted by service, kind and durable.
func Readers() []Reader {
	registryMu.Lock()
	defer registryMu.Unlock()
	out := make([]Reader, 0, len(readers))
	for _, r := range readers {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Service != b.Service {
			return a.Service < b.Service
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		if a.Durable != b.Durable {
			return a.Durable < b.Durable
		}
		return joinNames(a.Events) < joinNames(b.Events)
	})
	return out
}

// Producers returns the services that publish their events in this
// process (Produce), sorted.
func Producers() []Producer {
	registryMu.Lock()
	defer registryMu.Unlock()
	out := make([]Producer, 0, len(producers))
	for _, p := range producers {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Service < out[j].Service })
	return out
}

// Produce ensures the streams of the events service publishes (StreamsOf)
// and records it as their producer (Producers). Call it where the service
// starts relaying its outbox.
func Produce(ctx context.Context, js jetstream.JetStream, service string) error {
	streams, err := StreamsOf(service)
	if err != nil {
		return err
	}
	if err := EnsureStreams(ctx, js, streams...); err != nil {
		return err
	}
	registryMu.Lock()
	defer registryMu.Unlock()
	producers[service] = Producer{Service: service, Streams: slices.Clone(streams)}
	return nil
}
