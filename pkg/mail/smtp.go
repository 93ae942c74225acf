package mail

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/mail"
	"strconv"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Timeouts of the SMTP sender.
const (
	dialTimeout = 10 * time.Second
	// sendTimeout bounds a send when ctx has no earlier deadline.
	sendTimeout = 60 * time.Second
)

// SMTPSender submits messages to an SMTP server.
type SMTPSender struct {
	cfg  Config
	from *mail.Address
	// TLSConfig, when set, replaces the default TLS configuration (tests use
	// it to trust a local certificate).
	TLSConfig *tls.Config
}

// NewSMTPSender returns a sender for cfg (Host required; TLS none, starttls
// or tls).
func NewSMTPSender(cfg Config) (*SMTPSender, error) {
	if cfg.Host == "" {
		return nil, errors.New("mail: SMTP host is required")
	}
	switch cfg.TLS {
	case TLSNone, TLSStartTLS, TLSImplicit, TLSAuto:
	case "":
		cfg.TLS = TLSAuto
	default:
		return nil, fmt.Errorf("mail: unknown TLS mode %q", cfg.TLS)
	}
	if cfg.Port == 0 {
		cfg.Port = map[string]int{TLSNone: 25, TLSStartTLS: 587, TLSImplicit: 465, TLSAuto: 25}[cfg.TLS]
	}
	if cfg.From == "" {
		cfg.From = DefaultFrom
	}
	from, err := mail.ParseAddress(cfg.From)
	if err != nil {
		return nil, fmt.Errorf("mail: from %q: %w", cfg.From, err)
	}
	return &SMTPSender{cfg: cfg, from: from}, nil
}

// Send composes m and submits it. The connection is bounded by a dial
// timeout and by the deadline of ctx (or 60 s); cancelling ctx aborts it.
// PLAIN authentication is used only when a username is configured.
func (s *SMTPSender) Send(ctx context.Context, m Message) error {
	raw, err := Compose(s.cfg.From, m, nowFunc())
	if err != nil {
		return err
	}
	to, _ := mail.ParseAddress(m.To)

	ctx, cancel := context.WithTimeout(ctx, sendTimeout)
	defer cancel()
	deadline, _ := ctx.Deadline()

	addr := net.JoinHostPort(s.cfg.Host, strconv.Itoa(s.cfg.Port))
	d := net.Dialer{Timeout: dialTimeout, Deadline: deadline}
	mode := s.cfg.TLS
	if mode == TLSAuto {
		if mode, err = s.probe(ctx, d, addr); err != nil {
			return err
		}
	}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("mail: dial %s: %w", addr, err)
	}
	// Abort blocking I/O when ctx ends.
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Now()) })
	defer stop()

	tlsCfg := s.tlsConfig()
	var c *smtp.Client
	switch mode {
	case TLSStartTLS:
		// EHLO, STARTTLS, then EHLO again over TLS.
		if c, err = smtp.NewClientStartTLS(conn, tlsCfg); err != nil {
			_ = conn.Close()
			return s.wrap(ctx, "starttls", err)
		}
	case TLSImplicit:
		c = smtp.NewClient(tls.Client(conn, tlsCfg))
	default:
		c = smtp.NewClient(conn)
	}
	defer c.Close()
	remaining := time.Until(deadline)
	c.CommandTimeout = remaining
	c.SubmissionTimeout = remaining
	if mode != TLSStartTLS {
		if err := c.Hello(localName); err != nil {
			return s.wrap(ctx, "hello", err)
		}
	}

	if s.cfg.Username != "" {
		if err := c.Auth(sasl.NewPlainClient("", s.cfg.Username, s.cfg.Password)); err != nil {
			return s.wrap(ctx, "auth", err)
		}
	}
	if err := c.Mail(s.from.Address, nil); err != nil {
		return s.wrap(ctx, "mail from", err)
	}
	if err := c.Rcpt(to.Address, nil); err != nil {
		return s.wrap(ctx, "rcpt to", err)
	}
	w, err := c.Data()
	if err != nil {
		return s.wrap(ctx, "data", err)
	}
	if _, err := w.Write(raw); err != nil {
		_ = w.Close()
		return s.wrap(ctx, "data", err)
	}
	if err := w.Close(); err != nil {
		return s.wrap(ctx, "data", err)
	}
	if err := c.Quit(); err != nil {
		return s.wrap(ctx, "quit", err)
	}
	return nil
}

func (s *SMTPSender) tlsConfig() *tls.Config {
	if s.TLSConfig != nil {
		cfg := s.TLSConfig.Clone()
		if cfg.ServerName == "" {
			cfg.ServerName = s.cfg.Host
		}
		return cfg
	}
	return &tls.Config{ServerName: s.cfg.Host, MinVersion: tls.VersionTLS12}
}

func (s *SMTPSender) wrap(ctx context.Context, step string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("mail: smtp %s: %w (%w)", step, ctx.Err(), err)
	}
	return fmt.Errorf("mail: smtp %s: %w", step, err)
}

// localName is the EHLO name.
const localName = "bidradar.local"

// probe asks the server whether it offers STARTTLS (SMTP_TLS unset): use it when
// offered; go plain only when no password would cross in clear.
func (s *SMTPSender) probe(ctx context.Context, d net.Dialer, addr string) (string, error) {
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return "", fmt.Errorf("mail: dial %s: %w", addr, err)
	}
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Now()) })
	defer stop()
	c := smtp.NewClient(conn)
	defer c.Close()
	if err := c.Hello(localName); err != nil {
		return "", s.wrap(ctx, "hello", err)
	}
	offered, _ := c.Extension("STARTTLS")
	_ = c.Quit()
	switch {
	case offered:
		return TLSStartTLS, nil
	case s.cfg.Username != "":
		return "", fmt.Errorf("mail: %s offers no STARTTLS; refusing to send the SMTP password in clear (set SMTP_TLS=none to allow it)", addr)
	}
	return TLSNone, nil
}
