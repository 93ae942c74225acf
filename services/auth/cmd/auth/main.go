// Command auth runs the auth service.
//
//	auth [serve]   serve AuthService on AUTH_ADDR (default 127.0.0.1:9001)
//	auth migrate   apply the database migrations and exit
//
// Configuration comes from the environment only (see authsvc.ConfigFromEnv).
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"bidradar/pkg/logging"
	"bidradar/pkg/server"
	"bidradar/pkg/telemetry"
	"bidradar/services/auth/authsvc"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		slog.Error("auth exited", "err", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	cmd := "serve"
	if len(args) > 0 {
		cmd = args[0]
	}
	if len(args) > 1 {
		return errors.New("usage: auth [serve|migrate]")
	}
	cfg, err := authsvc.ConfigFromEnv(os.Getenv)
	if err != nil {
		return err
	}
	log := logging.New("auth", cfg.LogLevel)
	slog.SetDefault(log)
	switch cmd {
	case "migrate":
		cfg.SkipMigrations = false
		if err := authsvc.Migrate(ctx, cfg); err != nil {
			return err
		}
		log.InfoContext(ctx, "migrations applied")
		return nil
	case "serve":
	default:
		return fmt.Errorf("unknown command %q: usage: auth [serve|migrate]", cmd)
	}
	otelDown, err := telemetry.Setup(ctx, "auth")
	if err != nil {
		return err
	}
	defer func() { _ = otelDown(context.WithoutCancel(ctx)) }()
	svc, err := authsvc.New(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer svc.Close()
	ln, err := server.Listen(cfg.Addr)
	if err != nil {
		return err
	}
	return svc.Run(ctx, ln)
}
