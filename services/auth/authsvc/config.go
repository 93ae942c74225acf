package authsvc

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"net/url"
	"runtime"
	"strings"

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

// settings is the auth service's configuration. Production (APP_ENV)
// requires DATABASE_URL, NATS_URL, AUTH_SIGNING_KEY, OTP_HMAC_KEY and
// SMTP_HOST, and refuses argon2 costs below the defaults.
type settings struct {
	databaseURL string // DATABASE_URL (schema "auth"); development: DefaultDatabaseURL
	natsURL     string // NATS_URL; empty: events wait in the outbox
	production  bool   // APP_ENV=production: Secure cookies, the rules above

	// signingSeed is the Ed25519 seed of AUTH_SIGNING_KEY; nil in
	// development: generated once and kept in the database.
	signingSeed []byte
	// otpKey is OTP_HMAC_KEY (at least 32 bytes), from which the one-time
	// code and refresh-rotation keys derive; nil in development: kept in the
	// database.
	otpKey []byte
	// serviceKey is SERVICE_TOKEN_KEY, the key of the service tokens that
	// the internal RPCs (GetUser, GetPublicKeys) require, as every
	// service's do.
	serviceKey   *authn.ServiceKey
	supportEmail string // SUPPORT_EMAIL, where contact-us messages go

	mail mail.Config
	line line.Config // LINE_*: an empty channel id disables LINE Login

	// argon2 are the password hashing costs (AUTH_ARGON2_*); at most
	// loginConcurrency hashes run at once (LOGIN_CONCURRENCY, default
	// 2×GOMAXPROCS) and loginQueue callers wait (LOGIN_QUEUE, 0: twice that).
	argon2           argon2id.Params
	loginConcurrency int
	loginQueue       int
}

// readSettings reads the configuration through env, which collects every
// problem, rules across variables included.
func readSettings(env *config.Loader) settings {
	var s settings
	s.production = env.String("APP_ENV", "development") == "production"
	if s.production {
		s.databaseURL = env.Required("DATABASE_URL")
	} else {
		s.databaseURL = env.String("DATABASE_URL", DefaultDatabaseURL)
	}
	s.natsURL = env.String("NATS_URL", "")
	if s.production && s.natsURL == "" {
		env.Invalid("NATS_URL", "required in production")
	}
	s.signingSeed = readKey(env, "AUTH_SIGNING_KEY", s.production, "the base64 of a 32-byte Ed25519 seed",
		func(b []byte) bool { return len(b) == ed25519.SeedSize })
	s.otpKey = readKey(env, "OTP_HMAC_KEY", s.production, "the base64 of at least 32 random bytes",
		func(b []byte) bool { return len(b) >= 32 })
	s.serviceKey = runner.ReadServiceKey(env)
	s.supportEmail = env.String("SUPPORT_EMAIL", "")
	s.mail = mail.ConfigFrom(env)
	if s.production && s.mail.Host == "" {
		env.Invalid("SMTP_HOST", "required in production")
	}
	s.line = readLine(env)
	s.argon2 = readArgon2(env, s.production)
	s.loginConcurrency = env.IntIn("LOGIN_CONCURRENCY", 2*runtime.GOMAXPROCS(0), 1, 4096)
	s.loginQueue = env.IntIn("LOGIN_QUEUE", 0, 0, 1<<20)
	return s
}

// readKey reads a base64 secret that fits; unset, it is nil, or a problem in
// production.
func readKey(env *config.Loader, name string, production bool, want string, fits func([]byte) bool) []byte {
	v := env.OptionalSecret(name)
	if v == "" {
		if production {
			env.Invalid(name, "required in production")
		}
		return nil
	}
	b, err := decodeKey(v)
	if err != nil || !fits(b) {
		env.Invalid(name, "want "+want) // never the value: it is a secret
		return nil
	}
	return b
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

// readLine reads the LINE Login channel: with a channel id, its secret and
// the app's callback are required, and every URL must be http(s).
func readLine(env *config.Loader) line.Config {
	c := line.Config{
		ChannelID:     env.String("LINE_CHANNEL_ID", ""),
		ChannelSecret: env.OptionalSecret("LINE_CHANNEL_SECRET"),
		RedirectURI:   env.String("LINE_REDIRECT_URI", ""),
		AuthorizeURL:  env.String("LINE_AUTHORIZE_URL", line.DefaultAuthorizeURL),
		TokenURL:      env.String("LINE_TOKEN_URL", line.DefaultTokenURL),
		ProfileURL:    env.String("LINE_PROFILE_URL", ""),
	}
	if c.ChannelID == "" {
		return c
	}
	if c.ChannelSecret == "" {
		env.Invalid("LINE_CHANNEL_SECRET", "required with LINE_CHANNEL_ID")
	}
	if c.RedirectURI == "" {
		env.Invalid("LINE_REDIRECT_URI", "required with LINE_CHANNEL_ID")
	}
	for _, u := range []struct{ name, v string }{
		{"LINE_REDIRECT_URI", c.RedirectURI}, {"LINE_AUTHORIZE_URL", c.AuthorizeURL},
		{"LINE_TOKEN_URL", c.TokenURL}, {"LINE_PROFILE_URL", c.ProfileURL},
	} {
		if p, err := url.Parse(u.v); u.v != "" && (err != nil || (p.Scheme != "https" && p.Scheme != "http") || p.Host == "") {
			env.Invalid(u.name, "not an http(s) URL")
		}
	}
	return c
}

// readArgon2 reads the hashing costs, in the bounds a stored hash is
// verified within; production may not lower them below the defaults.
func readArgon2(env *config.Loader, production bool) argon2id.Params {
	// A value out of bounds is reported by IntIn; clamped, it is not
	// reported again below.
	in := func(name string, def, lo, hi int) int { return min(max(env.IntIn(name, def, lo, hi), lo), hi) }
	p := argon2id.DefaultParams
	p.Memory = uint32(in("AUTH_ARGON2_MEMORY_KIB", int(p.Memory), 8, 1<<20))
	p.Time = uint32(in("AUTH_ARGON2_ITERATIONS", int(p.Time), 1, 64))
	p.Threads = uint8(in("AUTH_ARGON2_THREADS", int(p.Threads), 1, 255))
	if p.Validate() != nil {
		env.Invalid("AUTH_ARGON2_MEMORY_KIB", "at least 8 KiB per thread (AUTH_ARGON2_THREADS)")
	}
	if production && p.Memory < argon2id.DefaultParams.Memory {
		env.Invalid("AUTH_ARGON2_MEMORY_KIB", "production may not lower it below 19456")
	}
	if production && p.Time < argon2id.DefaultParams.Time {
		env.Invalid("AUTH_ARGON2_ITERATIONS", "production may not lower it below 2")
	}
	return p
}
