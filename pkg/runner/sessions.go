package runner

import (
	"context"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	authv1 "bidradar/gen/auth/v1"
	"bidradar/pkg/authn"
	"bidradar/pkg/events"
)

// EndedSessions is the follower that keeps ended into step with auth's
// ended sessions (auth.v1.SessionEnded): at each start it replays the last
// authn.MaxTokenLifetime of them (a replica that starts late still refuses
// tokens ended before it started), then follows new ones as they are
// published, within a second of auth's commit.
func EndedSessions(ended *authn.EndedSessions) events.Follower {
	return events.Follow(authn.MaxTokenLifetime, events.On(func(_ context.Context, ev *authv1.SessionEnded, _ events.Meta) error {
		at := time.Now()
		if ev.OccurredAt != nil {
			at = ev.OccurredAt.AsTime()
		}
		ended.End(at, ev.FamilyIds...)
		return nil
	}))
}

// FollowEndedSessions makes the server's verifier refuse the tokens of
// sessions auth ended (see EndedSessions), while it serves; it waits for
// auth's stream when auth has not created it yet.
func (s *RPCServer) FollowEndedSessions(js jetstream.JetStream) error {
	f := EndedSessions(s.verifier.EndedSessions())
	if err := f.Prepare(js); err != nil {
		return err
	}
	s.Background(func(ctx context.Context) { f.Run(ctx, js, s.log) })
	return nil
}
