// Package mail sends transactional e-mail (one-time codes, notifications):
// over SMTP when SMTP_HOST is set, otherwise to the log and to .eml files
// for development.
package mail

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/mail"
	"strings"
	"time"

	"bidradar/pkg/config"
)

// Message is one e-mail to a single recipient. Text is required; HTML is
// optional and sent as the richer alternative.
type Message struct {
	To      string
	Subject string
	Text    string
	HTML    string
}

// Sender sends messages.
type Sender interface {
	Send(ctx context.Context, m Message) error
}

// TLS modes of SMTP_TLS.
const (
	TLSNone     = "none"
	TLSStartTLS = "starttls"
	TLSImplicit = "tls"
	// TLSAuto is the default when SMTP_TLS is unset: implicit TLS on port 465,
	// else STARTTLS when the server offers it, plain only when it does not and
	// no credentials would cross in clear. Dev mail catchers (port 25/1025,
	// no TLS) then work with just SMTP_HOST and SMTP_PORT.
	TLSAuto = "auto"
)

// Defaults.
const (
	DefaultFrom = "BidRadar <no-reply@bidradar.local>"
	DefaultDir  = ".data/mail"
)

// Config is the mail configuration read from the environment.
type Config struct {
	Host     string // SMTP_HOST; empty selects the development sender
	Port     int    // SMTP_PORT; default 587 (starttls), 465 (tls), 25 (none)
	Username string // SMTP_USERNAME; PLAIN auth only when set
	Password string // SMTP_PASSWORD
	TLS      string // SMTP_TLS: none, starttls or tls; unset: auto
	From     string // MAIL_FROM; default DefaultFrom
	Dir      string // MAIL_DIR; default DefaultDir (development sender)
}

// String describes the configuration without the password.
func (c Config) String() string {
	pw := ""
	if c.Password != "" {
		pw = "[redacted]"
	}
	return fmt.Sprintf("mail.Config{Host:%q Port:%d Username:%q Password:%s TLS:%q From:%q Dir:%q}",
		c.Host, c.Port, c.Username, pw, c.TLS, c.From, c.Dir)
}

// ConfigFromEnv reads and validates the mail configuration through getenv
// (os.Getenv in production), every problem at once.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	l := config.FromGetenv(getenv)
	c := ConfigFrom(l)
	if err := l.Err(); err != nil {
		return Config{}, fmt.Errorf("mail: %w", err)
	}
	return c, nil
}

// ConfigFrom reads the mail configuration through l, which collects the
// problems with the rest of a service's configuration.
func ConfigFrom(l *config.Loader) Config {
	c := Config{
		Host:     strings.TrimSpace(l.String("SMTP_HOST", "")),
		Username: l.String("SMTP_USERNAME", ""),
		Password: l.OptionalSecret("SMTP_PASSWORD"),
		TLS:      strings.ToLower(strings.TrimSpace(l.String("SMTP_TLS", TLSAuto))),
		From:     strings.TrimSpace(l.String("MAIL_FROM", DefaultFrom)),
		Dir:      strings.TrimSpace(l.String("MAIL_DIR", DefaultDir)),
	}
	switch c.TLS {
	case TLSAuto:
		// Authenticated submission is port 587; an unauthenticated relay, 25.
		c.Port = 25
		if c.Username != "" {
			c.Port = 587
		}
	case TLSNone:
		c.Port = 25
	case TLSStartTLS:
		c.Port = 587
	case TLSImplicit:
		c.Port = 465
	default:
		l.Invalid("SMTP_TLS", fmt.Sprintf("%q: want none, starttls or tls", c.TLS))
	}
	c.Port = l.IntIn("SMTP_PORT", c.Port, 1, 65535)
	if c.TLS == TLSAuto && c.Port == 465 {
		c.TLS = TLSImplicit
	}
	if c.From == "" {
		c.From = DefaultFrom
	}
	if _, err := mail.ParseAddress(c.From); err != nil {
		l.Invalid("MAIL_FROM", fmt.Sprintf("%q: %v", c.From, err))
	}
	if c.Dir == "" {
		c.Dir = DefaultDir
	}
	if c.Password != "" && c.Username == "" {
		l.Invalid("SMTP_PASSWORD", "set without SMTP_USERNAME")
	}
	return c
}

// NewFromEnv returns the SMTP sender when SMTP_HOST is set, otherwise the
// development sender writing to the log and to MAIL_DIR.
func NewFromEnv(getenv func(string) string, log *slog.Logger) (Sender, error) {
	cfg, err := ConfigFromEnv(getenv)
	if err != nil {
		return nil, err
	}
	return New(cfg, log)
}

// New returns the sender for cfg: SMTP when cfg.Host is set, else the
// development sender.
func New(cfg Config, log *slog.Logger) (Sender, error) {
	if log == nil {
		log = slog.Default()
	}
	if cfg.Host == "" {
		return NewDevSender(cfg.Dir, cfg.From, log)
	}
	return NewSMTPSender(cfg)
}

func validate(m Message) error {
	if strings.ContainsAny(m.To, "\r\n") || strings.ContainsAny(m.Subject, "\r\n") {
		return errors.New("mail: line break in recipient or subject")
	}
	if _, err := mail.ParseAddress(m.To); err != nil {
		return fmt.Errorf("mail: recipient %q: %w", m.To, err)
	}
	if m.Text == "" && m.HTML == "" {
		return errors.New("mail: empty body")
	}
	return nil
}

var nowFunc = time.Now
