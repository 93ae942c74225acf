// Package interestssvc assembles the interests service. Its domain arrives in a later
// issue; until then every RPC answers Unimplemented (REST 501 with a detail)
// behind the same token checks the real service will have.
package interestssvc

import (
	"context"
	"log/slog"

	"bidradar/gen/interests/v1/interestsv1connect"
	"bidradar/pkg/authn"
	"bidradar/pkg/runner"
)

// Spec is the interests binary and in-process component.
var Spec = runner.Spec{
	Name:        "interests",
	AddrEnv:     "INTERESTS_ADDR",
	DefaultAddr: "127.0.0.1:9003",
	Build:       Build,
}

// Build assembles the service from its environment (AUTH_TARGET).
func Build(_ context.Context, getenv runner.Getenv, log *slog.Logger) (runner.Component, error) {
	srv, err := runner.NewRPCServer(log, getenv("AUTH_TARGET"), authn.ParseAdmins(getenv("ADMIN_EMAILS")))
	if err != nil {
		return nil, err
	}
	opts, err := srv.HandlerOptions(interestsv1connect.InterestsServiceName)
	if err != nil {
		return nil, err
	}
	srv.Mount(interestsv1connect.NewInterestsServiceHandler(interestsv1connect.UnimplementedInterestsServiceHandler{}, opts...))
	return srv, nil
}
