// Package stack starts the whole of BidRadar in one process: PostgreSQL (found or
// private), NATS (embedded unless NATS_URL), every service on its own loopback
// listener speaking h2c exactly as in production, and the gateway in front.
// `make run` and the end-to-end tests use it.
package stack

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"bidradar/gateway/gw"
	"bidradar/pkg/config"
	"bidradar/pkg/logging"
	"bidradar/pkg/runner"
	"bidradar/pkg/server"
	"bidradar/services/auth/authsvc"
	"bidradar/services/interests/interestssvc"
	"bidradar/services/notification/notificationsvc"
	"bidradar/services/projects/projectssvc"
	"bidradar/services/realtime/realtimesvc"
	"bidradar/services/subscription/subscriptionsvc"
	"bidradar/services/teams/teamssvc"
)

// services in start order: auth first, since the others fetch its keys.
func services(opts Options) []struct {
	spec      runner.Spec
	targetEnv string
} {
	return []struct {
		spec      runner.Spec
		targetEnv string
	}{
		{authsvc.NewSpec(authsvc.Options{Now: opts.AuthClock}), "AUTH_TARGET"},
		{projectssvc.Spec, "PROJECTS_TARGET"},
		{interestssvc.Spec, "INTERESTS_TARGET"},
		{subscriptionsvc.Spec, "SUBSCRIPTION_TARGET"},
		{notificationsvc.Spec, "NOTIFICATION_TARGET"},
		{teamssvc.Spec, "TEAMS_TARGET"},
		{realtimesvc.Spec, "REALTIME_TARGET"},
	}
}

// Options configure a stack; Getenv is the base environment (os.Getenv by default).
type Options struct {
	Getenv  func(string) string
	DataDir string // default .data
	// Quiet discards the services' logs (tests); errors still surface from Start.
	Quiet bool
	// AuthClock replaces the auth service's clock (tests); nil is time.Now.
	AuthClock func() time.Time
}

// Stack is a running BidRadar.
type Stack struct {
	// URL is the gateway's origin, e.g. http://127.0.0.1:8080.
	URL         string
	DatabaseURL string
	NatsURL     string
	// Targets are the services' addresses by target variable
	// (AUTH_TARGET: 127.0.0.1:port), for tests that call them directly.
	Targets map[string]string

	cancel  context.CancelFunc
	wg      sync.WaitGroup
	mu      sync.Mutex
	errs    []error
	cleanup []func()
}

// Start brings the stack up and returns when the gateway reports every service ready.
func Start(ctx context.Context, opts Options) (*Stack, error) {
	base := opts.Getenv
	if base == nil {
		base = os.Getenv
	}
	// The launcher reads what it sets up itself; everything else passes
	// through to the services, which read it with pkg/config too.
	env := config.FromGetenv(base)
	dataDir := opts.DataDir
	if dataDir == "" {
		dataDir = ".data"
	}
	s := &Stack{}
	// ctx bounds start-up only; the services live until Close.
	var life context.Context
	life, s.cancel = context.WithCancel(context.WithoutCancel(ctx))
	fail := func(err error) (*Stack, error) { s.Close(); return nil, err }

	var err error
	if s.DatabaseURL, err = resolveDatabase(ctx, env.String("DATABASE_URL", ""), dataDir); err != nil {
		return fail(err)
	}
	var stopNATS func()
	if s.NatsURL, stopNATS, err = startNATS(env.String("NATS_URL", ""), dataDir); err != nil {
		return fail(err)
	}
	s.cleanup = append(s.cleanup, stopNATS)

	// Bind every listener first so each service knows its peers' addresses.
	overlay := map[string]string{"DATABASE_URL": s.DatabaseURL, "NATS_URL": s.NatsURL}
	// Internal RPCs take the service tokens signed with one shared key;
	// one is made up per start when none is configured.
	if env.OptionalSecret(runner.ServiceKeyEnv) == "" {
		var b [32]byte
		_, _ = rand.Read(b[:])
		overlay[runner.ServiceKeyEnv] = base64.StdEncoding.EncodeToString(b[:])
	}
	services := services(opts)
	listeners := make([]net.Listener, len(services))
	for i, svc := range services {
		if listeners[i], err = server.Listen(env.String(svc.spec.AddrEnv, "127.0.0.1:0")); err != nil {
			return fail(fmt.Errorf("%s: %w", svc.spec.Name, err))
		}
		overlay[svc.targetEnv] = listeners[i].Addr().String()
	}
	s.Targets = map[string]string{}
	for _, svc := range services {
		s.Targets[svc.targetEnv] = overlay[svc.targetEnv]
	}
	gwLn, err := server.Listen(env.String(gw.Spec.AddrEnv, gw.Spec.DefaultAddr))
	if err != nil {
		return fail(fmt.Errorf("gateway: %w", err))
	}
	s.URL = "http://" + gwLn.Addr().String()
	if env.String("WEB_DIR", "") == "" {
		if dist, err := findUp("frontend/dist"); err == nil {
			overlay["WEB_DIR"] = dist
		}
	}
	if env.String("PUBLIC_URL", "") == "" {
		overlay["PUBLIC_URL"] = s.URL
	}
	if err := env.Err(); err != nil {
		return fail(err)
	}
	getenv := func(k string) string {
		if v, ok := overlay[k]; ok {
			return v
		}
		return base(k)
	}

	for i, svc := range services {
		if err := s.start(life, svc.spec, getenv, listeners[i], opts.Quiet); err != nil {
			return fail(err)
		}
	}
	if err := s.start(life, gw.Spec, getenv, gwLn, opts.Quiet); err != nil {
		return fail(err)
	}
	if err := s.waitReady(ctx, 60*time.Second); err != nil {
		return fail(err)
	}
	return s, nil
}

func (s *Stack) start(ctx context.Context, spec runner.Spec, getenv runner.Getenv, ln net.Listener, quiet bool) error {
	log := logging.New(spec.Name, getenv("LOG_LEVEL"))
	if quiet {
		log = slog.New(slog.DiscardHandler)
	}
	comp, err := spec.Assemble(ctx, getenv, log)
	if err != nil {
		ln.Close()
		return fmt.Errorf("%s: %w", spec.Name, err)
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		if err := comp.Run(ctx, ln); err != nil && ctx.Err() == nil {
			s.mu.Lock()
			s.errs = append(s.errs, fmt.Errorf("%s stopped: %w", spec.Name, err))
			s.mu.Unlock()
			s.cancel()
		}
	}()
	return nil
}

func (s *Stack) waitReady(ctx context.Context, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	client := &http.Client{Timeout: 2 * time.Second}
	for {
		if err := s.Err(); err != nil {
			return err
		}
		resp, err := client.Get(s.URL + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("stack not ready after %s", limit)
		}
		select {
		case <-ctx.Done():
			return errors.Join(ctx.Err(), s.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Err reports a service that stopped on its own.
func (s *Stack) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return errors.Join(s.errs...)
}

// Wait returns when every service has stopped.
func (s *Stack) Wait() { s.wg.Wait() }

// Close stops every service (gracefully, in parallel) and the embedded NATS.
func (s *Stack) Close() {
	if s.cancel != nil {
		s.cancel()
	}
	s.wg.Wait()
	for i := len(s.cleanup) - 1; i >= 0; i-- {
		s.cleanup[i]()
	}
	s.cleanup = nil
}

// DataDir returns the absolute data folder for a relative one.
func DataDir(rel string) string {
	abs, err := filepath.Abs(rel)
	if err != nil {
		return rel
	}
	return abs
}
