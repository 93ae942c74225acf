package mail_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"bidradar/pkg/mail"
	"bidradar/pkg/testutil/smtptest"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestConfigFromEnv(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		env     map[string]string
		want    mail.Config
		wantErr string
	}{
		{"defaults", nil, mail.Config{Port: 25, TLS: "auto", From: mail.DefaultFrom, Dir: mail.DefaultDir}, ""},
		{"auto with credentials submits on 587", map[string]string{"SMTP_USERNAME": "u", "SMTP_PASSWORD": "p"},
			mail.Config{Port: 587, TLS: "auto", Username: "u", Password: "p", From: mail.DefaultFrom, Dir: mail.DefaultDir}, ""},
		{"auto on 465 is implicit TLS", map[string]string{"SMTP_PORT": "465"}, mail.Config{Port: 465, TLS: "tls", From: mail.DefaultFrom, Dir: mail.DefaultDir}, ""},
		{"explicit starttls", map[string]string{"SMTP_TLS": "starttls"}, mail.Config{Port: 587, TLS: "starttls", From: mail.DefaultFrom, Dir: mail.DefaultDir}, ""},
		{"tls", map[string]string{"SMTP_HOST": "smtp.example.com", "SMTP_TLS": "tls"},
			mail.Config{Host: "smtp.example.com", Port: 465, TLS: "tls", From: mail.DefaultFrom, Dir: mail.DefaultDir}, ""},
		{"none with port and auth", map[string]string{"SMTP_HOST": "h", "SMTP_TLS": "none", "SMTP_PORT": "2525",
			"SMTP_USERNAME": "u", "SMTP_PASSWORD": "p", "MAIL_FROM": "ระบบ <a@b.co>", "MAIL_DIR": "/tmp/m"},
			mail.Config{Host: "h", Port: 2525, Username: "u", Password: "p", TLS: "none", From: "ระบบ <a@b.co>", Dir: "/tmp/m"}, ""},
		{"none default port", map[string]string{"SMTP_TLS": "NONE"}, mail.Config{Port: 25, TLS: "none", From: mail.DefaultFrom, Dir: mail.DefaultDir}, ""},
		{"bad tls", map[string]string{"SMTP_TLS": "ssl"}, mail.Config{}, "SMTP_TLS"},
		{"bad port", map[string]string{"SMTP_PORT": "smtp"}, mail.Config{}, "SMTP_PORT"},
		{"port out of range", map[string]string{"SMTP_PORT": "70000"}, mail.Config{}, "SMTP_PORT"},
		{"bad from", map[string]string{"MAIL_FROM": "not an address"}, mail.Config{}, "MAIL_FROM"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := mail.ConfigFromEnv(envOf(tt.env))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Fatalf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
	cfg := mail.Config{Password: "secret"}
	if strings.Contains(cfg.String(), "secret") {
		t.Fatal("String leaks the password")
	}
}

var thai = mail.Message{
	To:      "user@example.co.th",
	Subject: "รหัสยืนยันของคุณสำหรับ BidRadar — ใช้ได้ภายใน 5 นาที โปรดอย่าเปิดเผยรหัสนี้แก่ผู้อื่น",
	Text:    "สวัสดีครับ\nรหัสยืนยันของคุณคือ 493027\nรหัสนี้ใช้ได้ 5 นาที\n" + strings.Repeat("ข้อความยาว ", 30),
	HTML:    "<p>รหัสยืนยันของคุณคือ <b>493027</b></p>",
}

func newSender(t *testing.T, srv *smtptest.Server, env map[string]string) *mail.SMTPSender {
	t.Helper()
	cfg, err := mail.ConfigFromEnv(envOf(env))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Host, cfg.Port = srv.Host(), srv.Port()
	s, err := mail.NewSMTPSender(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s.TLSConfig = srv.ClientTLSConfig()
	return s
}

func checkThai(t *testing.T, m smtptest.Message) {
	t.Helper()
	if m.Subject != thai.Subject {
		t.Errorf("subject %q", m.Subject)
	}
	if m.Text != thai.Text+"\n" && m.Text != thai.Text {
		t.Errorf("text %q", m.Text)
	}
	if !strings.Contains(m.HTML, "<b>493027</b>") {
		t.Errorf("html %q", m.HTML)
	}
	if smtptest.ExtractCode(m.Text) != "493027" {
		t.Errorf("code %q", smtptest.ExtractCode(m.Text))
	}
	if m.Header.Get("Date") == "" || !strings.HasPrefix(m.Header.Get("Message-ID"), "<") {
		t.Errorf("headers %v", m.Header)
	}
	if _, err := m.Header.Date(); err != nil {
		t.Errorf("date: %v", err)
	}
	head, _, _ := strings.Cut(m.Raw, "\r\n\r\n")
	for _, line := range strings.Split(head, "\r\n") {
		for _, c := range line {
			if c > 127 {
				t.Fatalf("non-ASCII header line %q", line)
			}
		}
		if len(line) > 998 {
			t.Fatalf("header line of %d bytes", len(line))
		}
	}
	if !strings.Contains(m.Header.Get("Content-Type"), "multipart/alternative") {
		t.Errorf("content-type %q", m.Header.Get("Content-Type"))
	}
}

func TestSMTPSenderPlain(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t)
	s := newSender(t, srv, map[string]string{"SMTP_TLS": "none", "MAIL_FROM": "บิดเรดาร์ <no-reply@bidradar.example>"})
	if err := s.Send(context.Background(), thai); err != nil {
		t.Fatal(err)
	}
	m, err := srv.WaitFor(thai.To, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	checkThai(t, m)
	if m.From != "no-reply@bidradar.example" || m.Username != "" {
		t.Fatalf("envelope from %q, auth user %q (no username configured: no AUTH)", m.From, m.Username)
	}
	if !strings.Contains(m.Header.Get("Message-ID"), "@bidradar.example>") {
		t.Errorf("message-id %q", m.Header.Get("Message-ID"))
	}
	// Text only: a single text/plain part.
	if err := s.Send(context.Background(), mail.Message{To: "b@example.com", Subject: "Hi", Text: "code 123456"}); err != nil {
		t.Fatal(err)
	}
	m2, err := srv.WaitFor("B@example.com", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if m2.Subject != "Hi" || m2.Text != "code 123456\n" || m2.HTML != "" || !strings.HasPrefix(m2.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("text-only message %+v", m2)
	}
}

func TestSMTPSenderStartTLSWithAuth(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t, smtptest.WithStartTLS())
	s := newSender(t, srv, map[string]string{"SMTP_USERNAME": "mailer", "SMTP_PASSWORD": "pw"})
	if err := s.Send(context.Background(), thai); err != nil {
		t.Fatal(err)
	}
	m, err := srv.WaitFor(thai.To, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	checkThai(t, m)
	if m.Username != "mailer" {
		t.Fatalf("auth user %q", m.Username)
	}
}

func TestSMTPSenderImplicitTLS(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t, smtptest.WithImplicitTLS())
	s := newSender(t, srv, map[string]string{"SMTP_TLS": "tls", "SMTP_USERNAME": "u", "SMTP_PASSWORD": "p"})
	if err := s.Send(context.Background(), thai); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.WaitFor(thai.To, 5*time.Second); err != nil {
		t.Fatal(err)
	}
}

func TestSMTPSenderRefusesDowngrade(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t) // no STARTTLS offered
	s := newSender(t, srv, map[string]string{"SMTP_USERNAME": "u", "SMTP_PASSWORD": "p"})
	if err := s.Send(context.Background(), thai); err == nil {
		t.Fatal("starttls against a server without STARTTLS: no error")
	}
	if n := len(srv.Messages()); n != 0 {
		t.Fatalf("%d messages delivered in clear text", n)
	}
}

// With SMTP_TLS unset and no credentials, a catcher without TLS (a dev or test
// SMTP server on 1025) still receives mail; explicit starttls never downgrades.
func TestSMTPSenderAutoPlainWithoutCredentials(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t)
	if err := newSender(t, srv, nil).Send(context.Background(), thai); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.WaitFor(thai.To, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	strict := newSender(t, srv, map[string]string{"SMTP_TLS": "starttls"})
	if err := strict.Send(context.Background(), thai); err == nil {
		t.Fatal("SMTP_TLS=starttls sent without TLS")
	}
}

func TestSMTPSenderHonoursContext(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() { // accepts and never greets
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	s, err := mail.NewSMTPSender(mail.Config{Host: "127.0.0.1", Port: ln.Addr().(*net.TCPAddr).Port, TLS: "none"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := s.Send(ctx, thai); err == nil {
		t.Fatal("no error from a silent server")
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("Send took %s despite a 200ms deadline", d)
	}
}

func TestRejectsHeaderInjection(t *testing.T) {
	t.Parallel()
	for _, m := range []mail.Message{
		{To: "a@b.co\r\nBcc: x@y.z", Subject: "s", Text: "t"},
		{To: "a@b.co", Subject: "s\r\nBcc: x@y.z", Text: "t"},
		{To: "not an address", Subject: "s", Text: "t"},
		{To: "a@b.co", Subject: "s"},
	} {
		if _, err := mail.Compose(mail.DefaultFrom, m, time.Now()); err == nil {
			t.Errorf("Compose(%+v): no error", m)
		}
	}
}

func TestDevSenderWritesFileAndLogs(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "mail")
	var logBuf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logBuf, nil))
	s, err := mail.NewFromEnv(envOf(map[string]string{"MAIL_DIR": dir}), log)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.(*mail.DevSender); !ok {
		t.Fatalf("SMTP_HOST unset: got %T", s)
	}
	if err := s.Send(context.Background(), thai); err != nil {
		t.Fatal(err)
	}
	var rec map[string]any
	if err := json.Unmarshal(logBuf.Bytes(), &rec); err != nil {
		t.Fatal(err)
	}
	if rec["msg"] != "mail written" || rec["to"] != thai.To || rec["subject"] != thai.Subject || rec["text"] != thai.Text {
		t.Fatalf("log record %v", rec)
	}
	path, _ := rec["path"].(string)
	raw, err := os.ReadFile(path)
	if err != nil || filepath.Dir(path) != dir || !strings.HasSuffix(path, ".eml") {
		t.Fatalf("eml %q: %v", path, err)
	}
	m, err := smtptest.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	m.Raw = string(raw)
	checkThai(t, m)

	s2, err := mail.NewFromEnv(envOf(map[string]string{"SMTP_HOST": "smtp.example.com"}), log)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s2.(*mail.SMTPSender); !ok {
		t.Fatalf("SMTP_HOST set: got %T", s2)
	}
}
