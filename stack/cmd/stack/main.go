// Command stack runs the whole of BidRadar locally (`make run`): the gateway on
// http://127.0.0.1:8080 (HTTP_ADDR overrides) with every service behind it.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"syscall"
	"time"

	"bidradar/pkg/config"
	"bidradar/pkg/logging"
	"bidradar/pkg/runner"
	"bidradar/pkg/telemetry"
	"bidradar/stack"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := logging.New("stack", os.Getenv("LOG_LEVEL"))
	runner.TuneGC()
	getenv := func(k string) string {
		if v, ok := os.LookupEnv(k); ok {
			return v
		}
		if k == "DEMO_DATA" {
			return "3000" // a few thousand realistic projects by default (docs/architecture.md#runtime-contract)
		}
		if k == "WEBHOOK_ALLOW_PRIVATE" && os.Getenv("APP_ENV") != "production" {
			return "true" // on this machine a webhook receiver is a local one
		}
		return ""
	}
	// One process, one tracer provider: with OTEL_EXPORTER_OTLP_ENDPOINT set,
	// every service's spans go to the collector as "bidradar" (README: Traces).
	shutdown, err := telemetry.Setup(ctx, "bidradar")
	if err != nil {
		log.Error("telemetry", "err", err)
		os.Exit(1)
	}
	defer func() { _ = shutdown(context.Background()) }()
	opts := stack.Options{Getenv: getenv}
	env := config.FromGetenv(getenv)
	if addr := env.String("STACK_TEST_CLOCK_ADDR", ""); addr != "" {
		stopClock, err := serveTestClock(addr, env.String("APP_ENV", "development"), &opts)
		if err != nil {
			log.Error("test clock", "err", err)
			os.Exit(1)
		}
		defer stopClock()
		log.Warn("the auth service's clock is moved by tests", "control", "http://"+addr)
	}
	s, err := stack.Start(ctx, opts)
	if err != nil {
		log.Error("stack failed to start", "err", err)
		os.Exit(1)
	}
	log.Info("BidRadar is ready", "url", s.URL, "database", redact(s.DatabaseURL))
	fmt.Fprintf(os.Stderr, "\n  BidRadar Thailand is running at %s  (Ctrl-C to stop)\n\n", s.URL)
	<-ctx.Done()
	slog.Info("stopping")
	s.Close()
	if err := s.Err(); err != nil {
		log.Error("stack stopped with errors", "err", err)
		os.Exit(1)
	}
}

// serveTestClock gives the auth service a clock the browser tests move
// (PUT http://addr/?offset=61s), so they cross the resend interval and code
// expiry without waiting. Loopback only, and never in production.
func serveTestClock(addr, appEnv string, opts *stack.Options) (func(), error) {
	if appEnv == "production" {
		return nil, errors.New("STACK_TEST_CLOCK_ADDR is for tests: refused with APP_ENV=production")
	}
	host, _, err := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("STACK_TEST_CLOCK_ADDR: %q is not a loopback host:port", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	clock := &stack.Clock{}
	opts.AuthClock = clock.Now
	srv := &http.Server{Handler: clock, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return func() { _ = srv.Close() }, nil
}

// redact hides a password in the database URL.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable)"
	}
	return u.Redacted()
}
