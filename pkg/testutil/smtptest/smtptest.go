// Package smtptest runs a real SMTP server (go-smtp) on 127.0.0.1 that
// captures and decodes the messages it receives, for tests of mail sending
// and of flows that mail one-time codes.
package smtptest

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"math/big"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Message is one received message, for one envelope recipient.
type Message struct {
	From     string      // envelope sender (MAIL FROM)
	To       string      // envelope recipient (RCPT TO)
	Username string      // PLAIN auth user, if the client authenticated
	Header   mail.Header // raw header fields
	Subject  string      // decoded from RFC 2047 encoded-words
	Text     string      // decoded text/plain part
	HTML     string      // decoded text/html part
	Raw      string      // the message as received
}

// Option configures Start.
type Option func(*options)

type options struct {
	startTLS, implicitTLS bool
	delay                 time.Duration
}

// WithDelay makes the server take d to accept each message (a slow mail
// provider), as in the timing attack of issue 12.
func WithDelay(d time.Duration) Option { return func(o *options) { o.delay = d } }

// WithStartTLS makes the server offer STARTTLS with a self-signed
// certificate (see Server.ClientTLSConfig).
func WithStartTLS() Option { return func(o *options) { o.startTLS = true } }

// WithImplicitTLS makes the server speak TLS from the first byte (SMTPS).
func WithImplicitTLS() Option { return func(o *options) { o.implicitTLS = true } }

// Server is a capturing SMTP server.
type Server struct {
	srv     *smtp.Server
	addr    *net.TCPAddr
	roots   *x509.CertPool
	mu      sync.Mutex
	msgs    []Message
	taken   []bool
	changed chan struct{}
	waiting int // WaitFor calls blocked for a message (the tests' sign that one waits)
	delay   time.Duration
}

// Start starts a server on 127.0.0.1:0 that accepts any sender, recipient
// and PLAIN credentials, and closes it when the test ends.
func Start(t testing.TB, opts ...Option) *Server {
	t.Helper()
	var o options
	for _, f := range opts {
		f(&o)
	}
	s := &Server{changed: make(chan struct{}), delay: o.delay}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) {
		return &session{s: s}, nil
	}))
	srv.Domain = "localhost"
	srv.AllowInsecureAuth = true
	srv.ReadTimeout = 30 * time.Second
	srv.WriteTimeout = 30 * time.Second
	srv.MaxMessageBytes = 10 << 20

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("smtptest: listen: %v", err)
	}
	if o.startTLS || o.implicitTLS {
		cert, roots, err := selfSigned()
		if err != nil {
			t.Fatalf("smtptest: certificate: %v", err)
		}
		s.roots = roots
		tlsCfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		if o.implicitTLS {
			ln = tls.NewListener(ln, tlsCfg)
		} else {
			srv.TLSConfig = tlsCfg
		}
	}
	s.srv = srv
	s.addr = ln.Addr().(*net.TCPAddr)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	t.Cleanup(func() {
		_ = srv.Close()
		<-done
	})
	return s
}

// Host returns "127.0.0.1".
func (s *Server) Host() string { return s.addr.IP.String() }

// Port returns the listening port.
func (s *Server) Port() int { return s.addr.Port }

// ClientTLSConfig returns a client TLS configuration trusting the server's
// self-signed certificate (for "localhost" and 127.0.0.1), or nil without TLS.
func (s *Server) ClientTLSConfig() *tls.Config {
	if s.roots == nil {
		return nil
	}
	return &tls.Config{RootCAs: s.roots, ServerName: "localhost", MinVersion: tls.VersionTLS12}
}

// Messages returns every message received so far, oldest first.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.msgs...)
}

// WaitFor returns the oldest message to the envelope recipient to
// (case-insensitive) that WaitFor has not returned before, waiting up to
// timeout for it to arrive.
func (s *Server) WaitFor(to string, timeout time.Duration) (Message, error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		s.mu.Lock()
		for i := range s.msgs {
			if !s.taken[i] && strings.EqualFold(s.msgs[i].To, to) {
				s.taken[i] = true
				m := s.msgs[i]
				s.mu.Unlock()
				return m, nil
			}
		}
		changed := s.changed
		s.waiting++
		s.mu.Unlock()
		select {
		case <-changed:
		case <-timer.C:
			s.mu.Lock()
			s.waiting--
			s.mu.Unlock()
			return Message{}, fmt.Errorf("smtptest: no new message to %s within %s", to, timeout)
		}
		s.mu.Lock()
		s.waiting--
		s.mu.Unlock()
	}
}

func (s *Server) add(msgs []Message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range msgs {
		s.msgs = append(s.msgs, m)
		s.taken = append(s.taken, false)
	}
	close(s.changed)
	s.changed = make(chan struct{})
}

// ExtractCode returns the first run of exactly six ASCII digits in s (a
// one-time code), or "" if there is none.
func ExtractCode(s string) string {
	for i := 0; i < len(s); {
		if !isDigit(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		if j-i == 6 {
			return s[i:j]
		}
		i = j
	}
	return ""
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

type session struct {
	s        *Server
	from     string
	to       []string
	username string
}

var _ smtp.AuthSession = (*session)(nil)

func (ss *session) AuthMechanisms() []string { return []string{sasl.Plain} }

func (ss *session) Auth(mech string) (sasl.Server, error) {
	if mech != sasl.Plain {
		return nil, smtp.ErrAuthUnknownMechanism
	}
	return sasl.NewPlainServer(func(_, username, _ string) error {
		ss.username = username
		return nil
	}), nil
}

func (ss *session) Mail(from string, _ *smtp.MailOptions) error {
	ss.from = from
	return nil
}

func (ss *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	ss.to = append(ss.to, to)
	return nil
}

func (ss *session) Data(r io.Reader) error {
	if ss.s.delay > 0 {
		time.Sleep(ss.s.delay)
	}
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	parsed, err := Parse(raw)
	if err != nil {
		return &smtp.SMTPError{Code: 554, EnhancedCode: smtp.EnhancedCode{5, 6, 0}, Message: err.Error()}
	}
	msgs := make([]Message, 0, len(ss.to))
	for _, to := range ss.to {
		m := parsed
		m.From, m.To, m.Username = ss.from, to, ss.username
		msgs = append(msgs, m)
	}
	ss.s.add(msgs)
	return nil
}

func (ss *session) Reset() {
	ss.from, ss.to = "", nil
}

func (ss *session) Logout() error { return nil }

// Parse decodes a raw RFC 5322 message: the Subject's encoded-words and the
// text/plain and text/html parts (quoted-printable, base64, 7bit or 8bit,
// nested multiparts included). Envelope fields are left empty.
func Parse(raw []byte) (Message, error) {
	mm, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return Message{}, fmt.Errorf("smtptest: parse: %w", err)
	}
	m := Message{Header: mm.Header, Raw: string(raw)}
	if m.Subject, err = new(mime.WordDecoder).DecodeHeader(mm.Header.Get("Subject")); err != nil {
		return Message{}, fmt.Errorf("smtptest: subject: %w", err)
	}
	if err := m.walk(mm.Header.Get("Content-Type"), mm.Header.Get("Content-Transfer-Encoding"), mm.Body); err != nil {
		return Message{}, err
	}
	return m, nil
}

func (m *Message) walk(ctype, cte string, body io.Reader) error {
	if ctype == "" {
		ctype = "text/plain"
	}
	mt, params, err := mime.ParseMediaType(ctype)
	if err != nil {
		return fmt.Errorf("smtptest: content-type %q: %w", ctype, err)
	}
	if strings.HasPrefix(mt, "multipart/") {
		mr := multipart.NewReader(body, params["boundary"])
		for {
			p, err := mr.NextRawPart()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return fmt.Errorf("smtptest: multipart: %w", err)
			}
			if err := m.walk(p.Header.Get("Content-Type"), p.Header.Get("Content-Transfer-Encoding"), p); err != nil {
				return err
			}
		}
	}
	var r io.Reader
	switch strings.ToLower(strings.TrimSpace(cte)) {
	case "quoted-printable":
		r = quotedprintable.NewReader(body)
	case "base64":
		r = base64.NewDecoder(base64.StdEncoding, &stripCRLF{r: body})
	default:
		r = body
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("smtptest: decode %s part: %w", mt, err)
	}
	text := strings.ReplaceAll(string(b), "\r\n", "\n")
	switch mt {
	case "text/plain":
		if m.Text == "" {
			m.Text = text
		}
	case "text/html":
		if m.HTML == "" {
			m.HTML = text
		}
	}
	return nil
}

// stripCRLF drops line breaks from base64 bodies.
type stripCRLF struct{ r io.Reader }

func (s *stripCRLF) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	j := 0
	for _, c := range p[:n] {
		if c != '\r' && c != '\n' {
			p[j] = c
			j++
		}
	}
	return j, err
}

func selfSigned() (tls.Certificate, *x509.CertPool, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "localhost"},
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	roots := x509.NewCertPool()
	roots.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, roots, nil
}
