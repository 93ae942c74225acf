package outbox

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"google.golang.org/protobuf/proto"
)

// ProtoEvent is a protobuf event that carries its own id (every events.proto
// message has an event_id).
type ProtoEvent interface {
	proto.Message
	GetEventId() string
}

// EnqueueEvent marshals ev and enqueues it on subject under its own id, in
// the caller's transaction.
func EnqueueEvent(ctx context.Context, tx pgx.Tx, subject string, ev ProtoEvent) error {
	b, err := proto.Marshal(ev)
	if err != nil {
		return fmt.Errorf("outbox: marshal %s: %w", subject, err)
	}
	return Enqueue(ctx, tx, subject, ev.GetEventId(), b)
}
