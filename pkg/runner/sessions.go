package runner

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"

	authv1 "bidradar/gen/auth/v1"
	"bidradar/pkg/authn"
)

// Auth's stream and the subject of ended sessions (services/auth publishes
// them through its outbox).
const (
	AuthStream           = "AUTH"
	SubjectSessionEnded  = "auth.v1.session.ended"
	sessionFollowBackoff = 2 * time.Second
)

// FollowEndedSessions keeps ended into step with auth's ended sessions: it
// replays the last authn.MaxTokenLifetime of them (a replica that starts
// late still refuses tokens ended before it started), then follows new ones
// as they are published, within a second of auth's commit. It runs until
// ctx ends, waiting for the stream when auth has not created it yet.
func FollowEndedSessions(ctx context.Context, js jetstream.JetStream, ended *authn.EndedSessions, log *slog.Logger) {
	for ctx.Err() == nil {
		err := followOnce(ctx, js, ended)
		if ctx.Err() != nil {
			return
		}
		if !errors.Is(err, jetstream.ErrStreamNotFound) {
			log.WarnContext(ctx, "following ended sessions", "err", err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(sessionFollowBackoff):
		}
	}
}

func followOnce(ctx context.Context, js jetstream.JetStream, ended *authn.EndedSessions) error {
	start := time.Now().Add(-authn.MaxTokenLifetime)
	c, err := js.OrderedConsumer(ctx, AuthStream, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{SubjectSessionEnded},
		DeliverPolicy:  jetstream.DeliverByStartTimePolicy,
		OptStartTime:   &start,
	})
	if err != nil {
		return err
	}
	cc, err := c.Consume(func(m jetstream.Msg) {
		var ev authv1.SessionEnded
		if proto.Unmarshal(m.Data(), &ev) == nil {
			at := time.Now()
			if ev.OccurredAt != nil {
				at = ev.OccurredAt.AsTime()
			}
			ended.End(at, ev.FamilyIds...)
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

// FollowEndedSessions makes the server's verifier refuse the tokens of
// sessions auth ended (see the package function), while it serves.
func (s *RPCServer) FollowEndedSessions(js jetstream.JetStream) {
	s.Background(func(ctx context.Context) { FollowEndedSessions(ctx, js, s.verifier.EndedSessions(), s.log) })
}
