// Package realtimesvc assembles the WebSocket fan-out service
// (docs/architecture.md#notifications-and-realtime).
package realtimesvc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"bidradar/pkg/authn"
	"bidradar/pkg/config"
	"bidradar/pkg/events"
	"bidradar/pkg/runner"
	"bidradar/services/realtime/internal/hub"
)

// Spec is the realtime binary and in-process component.
var Spec = runner.Spec{
	Name:        "realtime",
	AddrEnv:     "REALTIME_ADDR",
	DefaultAddr: "127.0.0.1:9006",
	Build:       Build,
}

// Build connects to NATS (NATS_URL) and serves /ws/notifications/{userId}.
func Build(ctx context.Context, getenv runner.Getenv, log *slog.Logger) (runner.Component, error) {
	env := config.FromGetenv(getenv)
	natsURL := env.Required("NATS_URL")
	authTarget := env.Required("AUTH_TARGET")
	key := runner.ReadServiceKey(env) // auth's keys come from an internal RPC
	if err := env.Err(); err != nil {
		return nil, fmt.Errorf("realtime config: %w", err)
	}
	srv, err := runner.NewRPCServer(log, runner.Identity{Name: runner.NameOf(ctx), Key: key}, authTarget, authn.Admins{})
	if err != nil {
		return nil, err
	}
	nc, js, err := events.Connect(natsURL, "realtime")
	if err != nil {
		return nil, err
	}
	srv.OnClose(func() { _ = nc.Drain() })
	// A new socket with an ended session's token is refused.
	if err := srv.FollowEndedSessions(js); err != nil {
		srv.Close()
		return nil, err
	}
	srv.Readiness("nats", func(context.Context) error {
		if !nc.IsConnected() {
			return errors.New("nats disconnected")
		}
		return nil
	})
	h := hub.NewHandler(nc, srv.Verifier(), log)
	srv.OnClose(h.Close) // runs before the drain registered above
	srv.Handle("/ws/notifications/", h)
	return srv, nil
}
