package authsvc

// The wiring: PostgreSQL, NATS and the outbox relay, mail, keys, the use
// cases and the Connect handler.

import (
	"context"
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"connectrpc.com/connect"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go"

	"bidradar/gen/auth/v1/authv1connect"
	"bidradar/pkg/access"
	"bidradar/pkg/authn"
	"bidradar/pkg/events"
	"bidradar/pkg/mail"
	"bidradar/pkg/outbox"
	"bidradar/pkg/pgdb"
	"bidradar/pkg/server"
	"bidradar/services/auth/internal/adapters/argon2id"
	"bidradar/services/auth/internal/adapters/line"
	"bidradar/services/auth/internal/adapters/postgres"
	"bidradar/services/auth/internal/adapters/token"
	"bidradar/services/auth/internal/app"
	"bidradar/services/auth/internal/domain"
	"bidradar/services/auth/internal/ports"
)

// cleanupEvery is how often expired codes, states and sessions are deleted.
const cleanupEvery = 10 * time.Minute

// Service is a wired auth service.
type Service struct {
	cfg     Config
	log     *slog.Logger
	pool    *pgxpool.Pool
	store   *postgres.Store
	nc      *nats.Conn
	relay   *outbox.Relay
	signer  *token.Signer
	handler http.Handler
	mails   *mail.Queue
	sender  mail.Sender

	closeOnce sync.Once
}

// migrate applies the auth schema's migrations to the database of cfg.
func migrate(ctx context.Context, cfg Config) error {
	pool, err := open(ctx, cfg)
	if err != nil {
		return err
	}
	defer pool.Close()
	return postgres.Migrate(ctx, pool)
}

func open(ctx context.Context, cfg Config) (*pgxpool.Pool, error) {
	if !cfg.Production() {
		// Development and tests: create the database on first start.
		if err := pgdb.EnsureDatabase(ctx, cfg.DatabaseURL); err != nil {
			return nil, err
		}
	}
	return pgdb.Open(ctx, cfg.DatabaseURL, postgres.Schema)
}

// New connects and wires everything; call Close when done.
func New(ctx context.Context, cfg Config, log *slog.Logger) (_ *Service, err error) {
	if log == nil {
		return nil, errors.New("auth: nil logger")
	}
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("auth config: %w", err)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	s := &Service{cfg: cfg, log: log}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()

	if s.pool, err = open(ctx, cfg); err != nil {
		return nil, err
	}
	if !cfg.SkipMigrations {
		if err := postgres.Migrate(ctx, s.pool); err != nil {
			return nil, err
		}
	}
	if s.store, err = postgres.New(s.pool); err != nil {
		return nil, err
	}

	seed := cfg.SigningKeySeed
	if seed == nil {
		if seed, err = s.store.SigningSeed(ctx); err != nil {
			return nil, fmt.Errorf("auth: development signing key: %w", err)
		}
		log.WarnContext(ctx, "AUTH_SIGNING_KEY unset: using the development key kept in the database")
	}
	if s.signer, err = token.NewSigner(seed); err != nil {
		return nil, err
	}
	secret := cfg.ServerSecret
	if secret == nil {
		if secret, err = s.store.ServerSecret(ctx, "otp_hmac_key", 32); err != nil {
			return nil, fmt.Errorf("auth: development OTP key: %w", err)
		}
		log.WarnContext(ctx, "OTP_HMAC_KEY unset: using the development key kept in the database")
	}
	otpHasher, err := domain.NewOTPHasher(derive(secret, "otp-hmac"))
	if err != nil {
		return nil, err
	}
	rotator, err := domain.NewRotator(derive(secret, "refresh-rotation"))
	if err != nil {
		return nil, err
	}

	if cfg.NATSURL != "" {
		nc, js, err := events.Connect(cfg.NATSURL, "auth")
		if err != nil {
			return nil, err
		}
		s.nc = nc
		if err := events.Produce(ctx, js, "auth"); err != nil {
			return nil, err
		}
		s.relay = outbox.NewRelay(s.pool, js, log, outbox.RelayOptions{})
	} else {
		log.WarnContext(ctx, "NATS_URL unset: events wait in the outbox until a relay with NATS runs")
	}

	sender := cfg.MailSender
	if sender == nil {
		if sender, err = mail.New(cfg.Mail, log); err != nil {
			return nil, err
		}
	}
	s.mails, s.sender = postgres.NewMailQueue(s.pool), sender
	hasher, err := argon2id.NewPool(argon2id.PoolOptions{
		Params: cfg.argonParams(), Concurrency: cfg.LoginConcurrency, QueueSize: cfg.LoginQueue,
	})
	if err != nil {
		return nil, err
	}
	lineClient := line.New(line.Config{
		ChannelID: cfg.Line.ChannelID, ChannelSecret: cfg.Line.ChannelSecret, RedirectURI: cfg.Line.RedirectURI,
		AuthorizeURL: cfg.Line.AuthorizeURL, TokenURL: cfg.Line.TokenURL, ProfileURL: cfg.Line.ProfileURL, Now: cfg.Now,
	})
	a, err := app.New(app.Deps{
		Store: s.store, Hasher: hasher, Mailer: mailer{s.mails, s.pool}, Signer: s.signer, Line: lineClient,
		OTP: otpHasher, Rotator: rotator, Log: log, Now: cfg.Now, SupportEmail: cfg.SupportEmail,
	})
	if err != nil {
		return nil, err
	}
	rpc, err := ports.NewServer(a, ports.Options{
		SecureCookies: cfg.Production(),
		PublicKeys:    func() []ports.PublicKey { return []ports.PublicKey{{KID: s.signer.KeyID(), Key: s.signer.PublicKey()}} },
		InternalToken: cfg.InternalToken,
	})
	if err != nil {
		return nil, err
	}
	verifier := authn.NewVerifier(authn.NewKeyRing(s.PublicKeys()))
	ended := func(ctx context.Context, familyID string) (bool, error) {
		return s.store.FamilyEnded(ctx, familyID, cfg.Now())
	}
	policy, err := access.ForService(authv1connect.AuthServiceName)
	if err != nil {
		return nil, err
	}
	var cookies []authn.InterceptorOption
	if cfg.Production() {
		cookies = append(cookies, authn.SecureCookiesOnly()) // the __Host- access cookie only
	}
	opts := append(server.HandlerOptions(log, authn.NewInterceptor(verifier, policy, authn.Admins{}, cookies...), ports.RejectEndedSessions(ended, policy)),
		connect.WithReadMaxBytes(ports.MaxRequestBytes))
	mux := http.NewServeMux()
	mux.Handle(authv1connect.NewAuthServiceHandler(rpc, opts...))
	s.handler = mux
	log.InfoContext(ctx, "auth service ready", "config", cfg.String())
	return s, nil
}

// derive returns a purpose-specific key: HMAC-SHA256(secret, label).
func derive(secret []byte, label string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("bidradar-auth/" + label))
	return m.Sum(nil)
}

// mailer is the app's Mailer port: it queues the message (one INSERT), so
// that a request that sends mail takes as long as one that does not; the
// mail workers send it.
type mailer struct {
	q  *mail.Queue
	db mail.Execer
}

func (m mailer) Send(ctx context.Context, msg app.Mail) error {
	return m.q.Enqueue(ctx, m.db, mail.Message{To: msg.To, Subject: msg.Subject, Text: msg.Text, HTML: msg.HTML})
}

// mailWorkers send queued mail: each claims one due message at a time (SKIP
// LOCKED, so replicas share the work), woken by NOTIFY or every second.
const mailWorkers = 4

func (s *Service) mailLoop(ctx context.Context) {
	wake := make(chan struct{}, mailWorkers)
	signal := func() {
		for range mailWorkers {
			select {
			case wake <- struct{}{}:
			default:
			}
		}
	}
	var wg sync.WaitGroup
	wg.Go(func() { // the listener
		for ctx.Err() == nil {
			conn, err := s.mails.Listen(ctx)
			if err != nil {
				if ctx.Err() == nil {
					s.log.WarnContext(ctx, "mail listener", "err", err)
					time.Sleep(time.Second)
				}
				continue
			}
			for ctx.Err() == nil && !conn.Conn().IsClosed() {
				s.mails.WaitForMail(ctx, conn, 30*time.Second)
				signal()
			}
			conn.Release()
		}
	})
	for range mailWorkers {
		wg.Go(func() {
			tick := time.NewTicker(time.Second)
			defer tick.Stop()
			for {
				for {
					n, err := s.mails.DeliverDue(ctx, 1, s.cfg.Now(), s.sender.Send)
					if err != nil && ctx.Err() == nil {
						s.log.WarnContext(ctx, "mail delivery", "err", err)
					}
					if n == 0 || err != nil {
						break
					}
				}
				select {
				case <-ctx.Done():
					return
				case <-wake:
				case <-tick.C:
				}
			}
		})
	}
	wg.Wait()
}

// Handler returns the Connect/gRPC/gRPC-Web handler of AuthService (no
// health endpoints: Run adds /healthz and /readyz).
func (s *Service) Handler() http.Handler { return s.handler }

// PublicKeys returns the access-token verification keys by key id, for
// verifiers of other services started in the same process.
func (s *Service) PublicKeys() map[string]ed25519.PublicKey {
	return map[string]ed25519.PublicKey{s.signer.KeyID(): s.signer.PublicKey()}
}

// Ready checks the database and NATS.
func (s *Service) Ready(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	if s.nc != nil && !s.nc.IsConnected() {
		return errors.New("nats: not connected")
	}
	return nil
}

// Run serves on ln (h2c, /healthz, /readyz, graceful shutdown) and runs the
// outbox relay and the periodic cleanup until ctx ends.
func (s *Service) Run(ctx context.Context, ln net.Listener) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	if s.relay != nil {
		wg.Go(func() {
			if err := s.relay.Run(ctx); err != nil {
				s.log.ErrorContext(ctx, "outbox relay stopped", "err", err)
			}
		})
	}
	wg.Go(func() { s.cleanupLoop(ctx) })
	wg.Go(func() { s.mailLoop(ctx) })
	err := server.Run(ctx, ln, s.handler, server.WithLogger(s.log), server.WithReadiness("auth", s.Ready))
	cancel()
	wg.Wait()
	return err
}

func (s *Service) cleanupLoop(ctx context.Context) {
	t := time.NewTicker(cleanupEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := s.store.Cleanup(ctx, s.cfg.Now()); err != nil && ctx.Err() == nil {
				s.log.WarnContext(ctx, "cleanup failed", "err", err)
			}
		}
	}
}

// Close releases NATS and the database pool.
func (s *Service) Close() {
	s.closeOnce.Do(func() {
		if s.nc != nil {
			_ = s.nc.Drain()
		}
		if s.pool != nil {
			s.pool.Close()
		}
	})
}
