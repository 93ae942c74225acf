package authsvc

// The wiring after the database is open: keys, adapters, the use cases,
// events, jobs and the Connect handler.

import (
	"context"
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"connectrpc.com/connect"
	"github.com/jackc/pgx/v5/pgxpool"

	"bidradar/gen/auth/v1/authv1connect"
	"bidradar/pkg/access"
	"bidradar/pkg/authn"
	"bidradar/pkg/mail"
	"bidradar/pkg/queue"
	"bidradar/pkg/runner"
	"bidradar/services/auth/internal/adapters/argon2id"
	"bidradar/services/auth/internal/adapters/line"
	"bidradar/services/auth/internal/adapters/postgres"
	"bidradar/services/auth/internal/adapters/token"
	"bidradar/services/auth/internal/app"
	"bidradar/services/auth/internal/domain"
	"bidradar/services/auth/internal/ports"
)

// wire completes srv on pool; ring receives the token verification key.
func wire(ctx context.Context, srv *runner.RPCServer, pool *pgxpool.Pool, ring *authn.KeyRing, s settings, o Options, log *slog.Logger) error {
	store, err := postgres.New(pool)
	if err != nil {
		return err
	}
	k, err := loadKeys(ctx, store, s, log)
	if err != nil {
		return err
	}
	ring.Replace(map[string]ed25519.PublicKey{k.signer.KeyID(): k.signer.PublicKey()})
	sender := o.MailSender
	if sender == nil {
		if sender, err = mail.New(s.mail, log); err != nil {
			return err
		}
	}
	a, err := newApp(store, pool, k, s, o, log)
	if err != nil {
		return err
	}
	if s.natsURL != "" {
		if err := connectEvents(ctx, srv, pool, s.natsURL); err != nil {
			return err
		}
	} else {
		log.WarnContext(ctx, "NATS_URL unset: events wait in the outbox until a relay with NATS runs")
	}
	if err := startJobs(srv, a, pool, sender, o, log); err != nil {
		return err
	}
	return mount(srv, a, k.signer, s)
}

// keys are the service's secrets in use.
type keys struct {
	signer  *token.Signer    // access tokens (AUTH_SIGNING_KEY)
	otp     domain.OTPHasher // one-time codes, derived from OTP_HMAC_KEY
	rotator domain.Rotator   // refresh-token children, derived from OTP_HMAC_KEY
}

// loadKeys builds the keys from the configuration or, in development, from
// the ones kept in the database (generated on the first start, so sessions
// and codes survive a restart).
func loadKeys(ctx context.Context, store *postgres.Store, s settings, log *slog.Logger) (keys, error) {
	seed, secret := s.signingSeed, s.otpKey
	var err error
	if seed == nil {
		if seed, err = store.SigningSeed(ctx); err != nil {
			return keys{}, fmt.Errorf("auth: development signing key: %w", err)
		}
		log.WarnContext(ctx, "AUTH_SIGNING_KEY unset: using the development key kept in the database")
	}
	if secret == nil {
		if secret, err = store.ServerSecret(ctx, "otp_hmac_key", 32); err != nil {
			return keys{}, fmt.Errorf("auth: development OTP key: %w", err)
		}
		log.WarnContext(ctx, "OTP_HMAC_KEY unset: using the development key kept in the database")
	}
	var k keys
	if k.signer, err = token.NewSigner(seed); err != nil {
		return keys{}, err
	}
	if k.otp, err = domain.NewOTPHasher(derive(secret, "otp-hmac")); err != nil {
		return keys{}, err
	}
	if k.rotator, err = domain.NewRotator(derive(secret, "refresh-rotation")); err != nil {
		return keys{}, err
	}
	return k, nil
}

// derive returns a purpose-specific key: HMAC-SHA256(secret, label).
func derive(secret []byte, label string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("bidradar-auth/" + label))
	return m.Sum(nil)
}

// newApp builds the use cases on their adapters.
func newApp(store *postgres.Store, pool *pgxpool.Pool, k keys, s settings, o Options, log *slog.Logger) (*app.App, error) {
	hasher, err := argon2id.NewPool(argon2id.PoolOptions{Params: s.argon2, Concurrency: s.loginConcurrency, QueueSize: s.loginQueue})
	if err != nil {
		return nil, err
	}
	lineCfg := s.line
	lineCfg.Now = o.Now
	return app.New(app.Deps{
		Store: store, Hasher: hasher, Mailer: postgres.NewMailbox(pool),
		Signer: k.signer, Line: line.New(lineCfg), OTP: k.otp, Rotator: k.rotator,
		Log: log, Now: o.Now, SupportEmail: s.supportEmail,
	})
}

// connectEvents relays the outbox to the AUTH stream; /readyz follows NATS.
func connectEvents(ctx context.Context, srv *runner.RPCServer, pool *pgxpool.Pool, url string) error {
	js, err := srv.ConnectEvents(ctx, url, pool, runner.Events{
		Name: "auth",
	})
	if err != nil {
		return err
	}
	srv.Readiness("nats", func(context.Context) error {
		if !js.Conn().IsConnected() {
			return errors.New("not connected")
		}
		return nil
	})
	return nil
}

// cleanupEvery is how often expired codes, states and sessions are deleted.
const cleanupEvery = 10 * time.Minute

// startJobs runs the service's jobs, each safe on every replica at once:
// the cleanup, and the job queue's worker (pkg/queue), which sends the
// queued mail as soon as it is queued (the queue wakes it), a few messages
// at a time, with retries.
func startJobs(srv *runner.RPCServer, a *app.App, pool *pgxpool.Pool, sender mail.Sender, o Options, log *slog.Logger) error {
	srv.Every(cleanupEvery, func(ctx context.Context) {
		if err := a.Cleanup.Handle(ctx); err != nil && ctx.Err() == nil {
			log.WarnContext(ctx, "cleanup failed", "err", err)
		}
	})
	w, err := queue.New(pool, queue.Options{Log: log, Now: o.Now}, postgres.NewMailQueue(pool).Kind(sender))
	if err != nil {
		return err
	}
	srv.Background(w.Run)
	return nil
}

// mount serves AuthService: the shared interceptors, then the check that
// a valid token's session has not ended, which needs authn's claims.
func mount(srv *runner.RPCServer, a *app.App, signer *token.Signer, s settings) error {
	rpc, err := ports.NewServer(a, ports.Options{
		SecureCookies: s.production,
		PublicKeys:    func() []ports.PublicKey { return []ports.PublicKey{{KID: signer.KeyID(), Key: signer.PublicKey()}} },
	})
	if err != nil {
		return err
	}
	policy, err := access.ForService(authv1connect.AuthServiceName)
	if err != nil {
		return err
	}
	opts, err := srv.HandlerOptions(authv1connect.AuthServiceName)
	if err != nil {
		return err
	}
	opts = append(opts, connect.WithInterceptors(ports.RejectEndedSessions(a.SessionEnded.Handle, policy)),
		connect.WithReadMaxBytes(ports.MaxRequestBytes))
	srv.Mount(authv1connect.NewAuthServiceHandler(rpc, opts...))
	return nil
}
