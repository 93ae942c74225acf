package authsvc

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"runtime"
	"strings"
	"time"

	"bidradar/pkg/authn"
	"bidradar/pkg/config"
	"bidradar/pkg/mail"
	"bidradar/pkg/runner"
	"bidradar/services/auth/internal/adapters/argon2id"
	"bidradar/services/auth/internal/adapters/line"
)

// Defaults.
const (
	DefaultAddr        = "127.0.0.1:9001"
	DefaultDatabaseURL = "postgres://postgres@127.0.0.1:5432/procurement?sslmode=disable"
)

// LineConfig is the LINE Login channel.
type LineConfig struct {
	ChannelID     string // LINE_CHANNEL_ID; empty disables LINE Login
	ChannelSecret string // LINE_CHANNEL_SECRET
	RedirectURI   string // LINE_REDIRECT_URI: the app's /auth/line/callback
	AuthorizeURL  string // LINE_AUTHORIZE_URL
	TokenURL      string // LINE_TOKEN_URL
	ProfileURL    string // LINE_PROFILE_URL (optional)
}

// Argon2Config are the password hashing costs.
type Argon2Config struct {
	MemoryKiB  uint32 // AUTH_ARGON2_MEMORY_KIB, default 19456 (19 MiB)
	Iterations uint32 // AUTH_ARGON2_ITERATIONS, default 2
	Threads    uint8  // AUTH_ARGON2_THREADS, default 1
}

// Config is the auth service's configuration, read from the environment.
type Config struct {
	Addr        string // AUTH_ADDR
	DatabaseURL string // DATABASE_URL (schema "auth")
	NATSURL     string // NATS_URL; empty: events stay in the outbox (not allowed in production)
	AppEnv      string // APP_ENV: "production" or anything else (development)
	LogLevel    string // LOG_LEVEL

	// SigningKeySeed is the Ed25519 seed of AUTH_SIGNING_KEY (base64, 32
	// bytes). Nil in development: generated once and kept in signing_keys.
	SigningKeySeed []byte
	// ServerSecret is OTP_HMAC_KEY (base64, at least 32 bytes); the OTP and
	// refresh-rotation keys are derived from it. Nil in development:
	// generated once and kept in server_secrets.
	ServerSecret []byte
	// ServiceKey is SERVICE_TOKEN_KEY, the key of the service tokens that
	// the internal RPCs (GetUser, GetPublicKeys) require, as every
	// service's do.
	ServiceKey *authn.ServiceKey
	// SupportEmail is SUPPORT_EMAIL, where contact-us messages are mailed.
	SupportEmail string

	Mail mail.Config
	// MailSender, when set, replaces the sender built from Mail (tests and
	// in-process launchers).
	MailSender mail.Sender

	Line LineConfig

	// LoginConcurrency is LOGIN_CONCURRENCY, the argon2 pool size
	// (default 2×GOMAXPROCS); LoginQueue is LOGIN_QUEUE, how many callers
	// may wait for a slot (default 2×LoginConcurrency).
	LoginConcurrency int
	LoginQueue       int
	Argon2           Argon2Config

	// SkipMigrations leaves the schema alone at start (the "migrate"
	// subcommand or an init container ran them).
	SkipMigrations bool
	// Now is the clock (tests); time.Now when nil.
	Now func() time.Time
}

// Production reports whether APP_ENV is production.
func (c Config) Production() bool { return c.AppEnv == "production" }

// String describes the configuration without secrets.
func (c Config) String() string {
	set := func(b bool) string {
		if b {
			return "set"
		}
		return "unset"
	}
	return fmt.Sprintf("auth.Config{Addr:%q DatabaseURL:%q NATSURL:%q AppEnv:%q SigningKey:%s OTPKey:%s ServiceKey:%s Mail:%s LINE:%s LoginConcurrency:%d Argon2:%+v}",
		c.Addr, redactURL(c.DatabaseURL), redactURL(c.NATSURL), c.AppEnv, set(c.SigningKeySeed != nil), set(c.ServerSecret != nil),
		set(c.ServiceKey != nil), c.Mail, set(c.Line.ChannelID != ""), c.LoginConcurrency, c.Argon2)
}

func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "***")
	}
	return u.String()
}

// ConfigFromEnv reads the configuration through getenv and fails on any
// invalid value; production requires DATABASE_URL, NATS_URL,
// AUTH_SIGNING_KEY, OTP_HMAC_KEY and SMTP_HOST.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	l := config.FromGetenv(getenv)
	c := Config{
		Addr:         l.String("AUTH_ADDR", DefaultAddr),
		AppEnv:       l.String("APP_ENV", "development"),
		LogLevel:     l.String("LOG_LEVEL", "info"),
		NATSURL:      l.String("NATS_URL", ""),
		ServiceKey:   runner.ReadServiceKey(l),
		SupportEmail: l.String("SUPPORT_EMAIL", ""),
		Line: LineConfig{
			ChannelID:     l.String("LINE_CHANNEL_ID", ""),
			ChannelSecret: l.OptionalSecret("LINE_CHANNEL_SECRET"),
			RedirectURI:   l.String("LINE_REDIRECT_URI", ""),
			AuthorizeURL:  l.String("LINE_AUTHORIZE_URL", line.DefaultAuthorizeURL),
			TokenURL:      l.String("LINE_TOKEN_URL", line.DefaultTokenURL),
			ProfileURL:    l.String("LINE_PROFILE_URL", ""),
		},
		LoginConcurrency: l.Int("LOGIN_CONCURRENCY", 2*runtime.GOMAXPROCS(0)),
		LoginQueue:       l.Int("LOGIN_QUEUE", 0),
		Argon2: Argon2Config{
			MemoryKiB:  uint32(l.Int("AUTH_ARGON2_MEMORY_KIB", int(argon2id.DefaultParams.Memory))),
			Iterations: uint32(l.Int("AUTH_ARGON2_ITERATIONS", int(argon2id.DefaultParams.Time))),
			Threads:    uint8(l.Int("AUTH_ARGON2_THREADS", int(argon2id.DefaultParams.Threads))),
		},
		SkipMigrations: l.Bool("AUTH_SKIP_MIGRATIONS", false),
	}
	prod := c.AppEnv == "production"
	if prod {
		c.DatabaseURL = l.String("DATABASE_URL", "") // validate requires it
		c.NATSURL = l.Required("NATS_URL")
	} else {
		c.DatabaseURL = l.String("DATABASE_URL", DefaultDatabaseURL)
	}
	signing, otpKey := l.OptionalSecret("AUTH_SIGNING_KEY"), l.OptionalSecret("OTP_HMAC_KEY")
	if signing != "" {
		seed, err := decodeKey(signing)
		if err != nil || len(seed) != ed25519.SeedSize {
			l.Invalid("AUTH_SIGNING_KEY", "want the base64 of a 32-byte Ed25519 seed")
		} else {
			c.SigningKeySeed = seed
		}
	} else if prod {
		l.Invalid("AUTH_SIGNING_KEY", "required in production")
	}
	if otpKey != "" {
		key, err := decodeKey(otpKey)
		if err != nil || len(key) < 32 {
			l.Invalid("OTP_HMAC_KEY", "want the base64 of at least 32 random bytes")
		} else {
			c.ServerSecret = key
		}
	} else if prod {
		l.Invalid("OTP_HMAC_KEY", "required in production")
	}
	c.Mail = mail.ConfigFrom(l)
	if prod && c.Mail.Host == "" {
		l.Invalid("SMTP_HOST", "required in production")
	}
	// validate holds the rules New also checks on a Config built in code.
	if err := errors.Join(l.Err(), c.validate()); err != nil {
		return Config{}, fmt.Errorf("auth config: %w", err)
	}
	return c, nil
}

func decodeKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b, nil
		}
	}
	return nil, errors.New("not base64")
}

// validate checks a Config however it was built.
func (c Config) validate() error {
	var errs []error
	if c.DatabaseURL == "" {
		errs = append(errs, errors.New("DATABASE_URL: required but not set"))
	}
	if c.LoginConcurrency < 1 {
		errs = append(errs, errors.New("LOGIN_CONCURRENCY: must be at least 1"))
	}
	if c.LoginQueue < 0 {
		errs = append(errs, errors.New("LOGIN_QUEUE: must not be negative"))
	}
	p := c.argonParams()
	if err := p.Validate(); err != nil {
		errs = append(errs, err)
	}
	if c.Production() && (p.Memory < argon2id.DefaultParams.Memory || p.Time < argon2id.DefaultParams.Time) {
		errs = append(errs, errors.New("AUTH_ARGON2_*: production may not lower the costs below m=19456 KiB, t=2"))
	}
	if c.SigningKeySeed != nil && len(c.SigningKeySeed) != ed25519.SeedSize {
		errs = append(errs, errors.New("signing key seed must be 32 bytes"))
	}
	if c.ServerSecret != nil && len(c.ServerSecret) < 32 {
		errs = append(errs, errors.New("server secret must be at least 32 bytes"))
	}
	if c.Line.ChannelID != "" {
		if c.Line.ChannelSecret == "" || c.Line.RedirectURI == "" {
			errs = append(errs, errors.New("LINE_CHANNEL_SECRET and LINE_REDIRECT_URI are required with LINE_CHANNEL_ID"))
		}
		for name, v := range map[string]string{"LINE_REDIRECT_URI": c.Line.RedirectURI, "LINE_AUTHORIZE_URL": c.Line.AuthorizeURL, "LINE_TOKEN_URL": c.Line.TokenURL, "LINE_PROFILE_URL": c.Line.ProfileURL} {
			if v == "" {
				continue
			}
			if u, err := url.Parse(v); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
				errs = append(errs, fmt.Errorf("%s: %q is not an http(s) URL", name, v))
			}
		}
	}
	return errors.Join(errs...)
}

// argonParams returns the hashing parameters, defaults filled in.
func (c Config) argonParams() argon2id.Params {
	p := argon2id.DefaultParams
	if c.Argon2.MemoryKiB != 0 {
		p.Memory = c.Argon2.MemoryKiB
	}
	if c.Argon2.Iterations != 0 {
		p.Time = c.Argon2.Iterations
	}
	if c.Argon2.Threads != 0 {
		p.Threads = c.Argon2.Threads
	}
	return p
}
