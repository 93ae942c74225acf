package stack

import (
	"context"
	"log/slog"
	"net"
	"time"

	"bidradar/pkg/runner"
	"bidradar/services/auth/authsvc"
)

// authSpec adapts the auth service to the launcher; clock (tests only) replaces
// its time source so expiry and grace windows can be crossed without sleeping.
func authSpec(clock func() time.Time) runner.Spec {
	return runner.Spec{
		Name:        "auth",
		AddrEnv:     "AUTH_ADDR",
		DefaultAddr: "127.0.0.1:9001",
		Build: func(ctx context.Context, getenv runner.Getenv, log *slog.Logger) (runner.Component, error) {
			cfg, err := authsvc.ConfigFromEnv(getenv)
			if err != nil {
				return nil, err
			}
			cfg.Now = clock
			svc, err := authsvc.New(ctx, cfg, log)
			if err != nil {
				return nil, err
			}
			return authComponent{svc}, nil
		},
	}
}

type authComponent struct{ *authsvc.Service }

func (a authComponent) Run(ctx context.Context, ln net.Listener) error {
	defer a.Close()
	return a.Service.Run(ctx, ln)
}
