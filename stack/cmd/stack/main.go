// Command stack runs the whole of BidRadar locally (`make run`): the gateway on
// http://127.0.0.1:8080 (HTTP_ADDR overrides) with every service behind it.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"os/signal"
	"syscall"

	"bidradar/pkg/logging"
	"bidradar/pkg/telemetry"
	"bidradar/stack"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := logging.New("stack", os.Getenv("LOG_LEVEL"))
	getenv := func(k string) string {
		if v, ok := os.LookupEnv(k); ok {
			return v
		}
		if k == "DEMO_DATA" {
			return "3000" // DESIGN §3: a few thousand realistic projects by default
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
	s, err := stack.Start(ctx, stack.Options{Getenv: getenv})
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

// redact hides a password in the database URL.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable)"
	}
	return u.Redacted()
}
