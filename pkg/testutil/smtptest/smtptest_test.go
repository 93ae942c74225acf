package smtptest_test

import (
	"context"
	"fmt"
	"net/smtp"
	"strings"
	"testing"
	"time"

	"bidradar/pkg/mail"
	"bidradar/pkg/testutil/eventually"
	"bidradar/pkg/testutil/smtptest"
)

func TestExtractCode(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"รหัสของคุณคือ 493027 ใช้ได้ 5 นาที", "493027"},
		{"ref 1234567 then 000123.", "000123"},
		{"12345 and 1234567", ""},
		{"code:654321", "654321"},
		{"", ""},
		{"๑๒๓๔๕๖ is Thai digits, 111222", "111222"},
	}
	for _, tt := range tests {
		if got := smtptest.ExtractCode(tt.in); got != tt.want {
			t.Errorf("ExtractCode(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCapturesThaiMailFromSender(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t)
	s, err := mail.NewSMTPSender(mail.Config{Host: srv.Host(), Port: srv.Port(), TLS: "none"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i := range 2 {
		err := s.Send(ctx, mail.Message{
			To:      "somchai@example.co.th",
			Subject: fmt.Sprintf("ยืนยันอีเมล ครั้งที่ %d", i+1),
			Text:    fmt.Sprintf("รหัสยืนยัน: 10000%d", i),
			HTML:    "<p>ยืนยัน</p>",
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := range 2 { // WaitFor returns each message once, oldest first
		m, err := srv.WaitFor("somchai@example.co.th", 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if m.Subject != fmt.Sprintf("ยืนยันอีเมล ครั้งที่ %d", i+1) || smtptest.ExtractCode(m.Text) != fmt.Sprintf("10000%d", i) || m.HTML != "<p>ยืนยัน</p>\n" {
			t.Fatalf("message %d: %+v", i, m)
		}
	}
	if _, err := srv.WaitFor("somchai@example.co.th", 100*time.Millisecond); err == nil {
		t.Fatal("WaitFor returned a message twice")
	}
	if n := len(srv.Messages()); n != 2 {
		t.Fatalf("Messages() = %d", n)
	}
}

func TestWaitForBlocksUntilArrivalAndDecodesBase64(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t)
	got := make(chan smtptest.Message, 1)
	go func() {
		m, err := srv.WaitFor("late@example.com", 5*time.Second)
		if err != nil {
			t.Error(err)
		}
		got <- m
	}()
	// Sent only once WaitFor is blocked for it.
	eventually.True(t, 5*time.Second, "WaitFor blocked for the message", func() bool { return srv.Waiting() == 1 })
	raw := strings.Join([]string{
		"From: a@example.com",
		"To: late@example.com",
		"Subject: =?UTF-8?Q?=E0=B8=97=E0=B8=94=E0=B8=AA=E0=B8=AD=E0=B8=9A?=",
		"MIME-Version: 1.0",
		`Content-Type: multipart/mixed; boundary="b1"`,
		"",
		"--b1",
		`Content-Type: multipart/alternative; boundary="b2"`,
		"",
		"--b2",
		"Content-Type: text/plain; charset=UTF-8",
		"Content-Transfer-Encoding: base64",
		"",
		"4Lij4Lir4Lix4LiqIDEyMzQ1Ng==",
		"--b2--",
		"--b1--",
		"",
	}, "\r\n")
	addr := fmt.Sprintf("%s:%d", srv.Host(), srv.Port())
	if err := smtp.SendMail(addr, nil, "a@example.com", []string{"late@example.com"}, []byte(raw)); err != nil {
		t.Fatal(err)
	}
	m := <-got
	if m.Subject != "ทดสอบ" || m.Text != "รหัส 123456" || m.From != "a@example.com" {
		t.Fatalf("%+v", m)
	}
}
