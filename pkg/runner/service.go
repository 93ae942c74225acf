package runner

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"bidradar/pkg/authn"
	"bidradar/pkg/config"
	"bidradar/pkg/pgdb"
)

// ServiceEnv is what every RPC service with a database reads: DATABASE_URL,
// AUTH_TARGET and SERVICE_TOKEN_KEY (required), ADMIN_EMAILS and NATS_URL
// (unset: events wait in the outbox and nothing is consumed), APP_ENV
// (production: only the __Host- access cookie counts).
type ServiceEnv struct {
	DatabaseURL, AuthTarget, NATSURL string
	// DatabaseReadURL is a streaming replica of DatabaseURL for the
	// service's read-only queries (RPCServer.Reads); empty: none.
	DatabaseReadURL string
	Admins          authn.Admins
	Production      bool
	// Keys, set by auth only, are the keys its own tokens are verified
	// with, in place of AuthTarget (see NewIssuerRPCServer).
	Keys authn.KeySource
	// ServiceKey signs and checks the service tokens of internal calls.
	ServiceKey *authn.ServiceKey
}

// ReadServiceEnv reads the ServiceEnv through env, which collects the
// problems with the rest of the service's configuration.
func ReadServiceEnv(env *config.Loader) ServiceEnv {
	return ServiceEnv{
		DatabaseURL:     env.Required("DATABASE_URL"),
		DatabaseReadURL: env.String("DATABASE_READ_URL", ""),
		AuthTarget:      env.Required("AUTH_TARGET"),
		Admins:          authn.ParseAdmins(env.String("ADMIN_EMAILS", "")),
		NATSURL:         env.String("NATS_URL", ""),
		Production:      env.String("APP_ENV", "development") == "production",
		ServiceKey:      ReadServiceKey(env),
	}
}

// StartService prepares the RPC server and opens the service's database with
// open: the pool answers /readyz and closes with the server. After an error
// later in Build, call srv.Close.
func StartService(ctx context.Context, log *slog.Logger, e ServiceEnv, open func(context.Context, string) (*pgxpool.Pool, error)) (*RPCServer, *pgxpool.Pool, error) {
	var opts []authn.InterceptorOption
	if e.Production {
		opts = append(opts, authn.SecureCookiesOnly())
	}
	id := Identity{Name: NameOf(ctx), Key: e.ServiceKey}
	var srv *RPCServer
	var err error
	if e.Keys != nil {
		srv, err = NewIssuerRPCServer(log, id, e.Keys, e.Admins, opts...)
	} else {
		srv, err = NewRPCServer(log, id, e.AuthTarget, e.Admins, opts...)
	}
	if err != nil {
		return nil, nil, err
	}
	pool, err := open(ctx, e.DatabaseURL)
	if err != nil {
		return nil, nil, err
	}
	srv.OnClose(pool.Close)
	srv.Readiness("postgres", pool.Ping)
	if e.DatabaseReadURL != "" {
		// The replica's readiness is not the service's: reads fall back.
		reads, err := pgdb.OpenReads(ctx, pool, e.DatabaseReadURL, pgdb.ReadsOptions{Log: log})
		if err != nil {
			srv.Close()
			return nil, nil, err
		}
		srv.reads, srv.secureCookies = reads, e.Production
		srv.OnClose(reads.Close)
	} else {
		srv.reads = pgdb.NewPrimaryReads(pool)
	}
	return srv, pool, nil
}

// Close runs what OnClose registered, for a Build that fails after
// StartService (Run does it when the server stops).
func (s *RPCServer) Close() {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
	s.closers = nil
}

// Every runs fn at once and then every d while the server serves (jobs that
// are safe on every replica at once).
func (s *RPCServer) Every(d time.Duration, fn func(ctx context.Context)) {
	s.Background(func(ctx context.Context) {
		tick := time.NewTicker(d)
		defer tick.Stop()
		for {
			fn(ctx)
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	})
}

// MigrateWith is a Spec.Migrate that opens the database of DATABASE_URL
// with open (which migrates it) and closes it again.
func MigrateWith(open func(context.Context, string) (*pgxpool.Pool, error)) func(context.Context, Getenv, *slog.Logger) error {
	return func(ctx context.Context, getenv Getenv, _ *slog.Logger) error {
		env := config.FromGetenv(getenv)
		url := env.Required("DATABASE_URL")
		if err := env.Err(); err != nil {
			return err
		}
		pool, err := open(ctx, url)
		if err != nil {
			return err
		}
		pool.Close()
		return nil
	}
}
