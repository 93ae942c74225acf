// Package notificationsvc assembles the notification service. Its domain arrives in a later
// issue; until then every RPC answers Unimplemented (REST 501 with a detail)
// behind the same token checks the real service will have.
package notificationsvc

import (
	"context"
	"log/slog"

	"bidradar/gen/notification/v1/notificationv1connect"
	"bidradar/pkg/authn"
	"bidradar/pkg/runner"
)

// Spec is the notification binary and in-process component.
var Spec = runner.Spec{
	Name:        "notification",
	AddrEnv:     "NOTIFICATION_ADDR",
	DefaultAddr: "127.0.0.1:9005",
	Build:       Build,
}

// Build assembles the service from its environment (AUTH_TARGET).
func Build(_ context.Context, getenv runner.Getenv, log *slog.Logger) (runner.Component, error) {
	srv, err := runner.NewRPCServer(log, getenv("AUTH_TARGET"), authn.ParseAdmins(getenv("ADMIN_EMAILS")))
	if err != nil {
		return nil, err
	}
	opts, err := srv.HandlerOptions(notificationv1connect.NotificationServiceName)
	if err != nil {
		return nil, err
	}
	srv.Mount(notificationv1connect.NewNotificationServiceHandler(notificationv1connect.UnimplementedNotificationServiceHandler{}, opts...))
	return srv, nil
}
