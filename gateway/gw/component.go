package gw

import (
	"context"
	"log/slog"
	"net"

	"bidradar/pkg/runner"
	"bidradar/pkg/server"
)

// Spec is the gateway binary and in-process component.
var Spec = runner.Spec{
	Name:        "gateway",
	AddrEnv:     "HTTP_ADDR",
	DefaultAddr: "127.0.0.1:8080",
	Build: func(ctx context.Context, getenv runner.Getenv, log *slog.Logger) (runner.Component, error) {
		cfg, err := ConfigFromEnv(Getenv(getenv))
		if err != nil {
			return nil, err
		}
		g, err := New(ctx, cfg, log)
		if err != nil {
			return nil, err
		}
		return component{g: g, log: log}, nil
	},
}

type component struct {
	g   *Gateway
	log *slog.Logger
}

// Run serves the public origin; /readyz follows the upstream services.
func (c component) Run(ctx context.Context, ln net.Listener) error {
	defer c.g.Close()
	return server.Run(ctx, ln, c.g, server.WithLogger(c.log), server.WithReadiness("upstreams", c.g.Ready))
}
