package authsvc_test

import (
	"context"
	"encoding/base64"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"

	authv1 "bidradar/gen/auth/v1"
	"bidradar/gen/auth/v1/authv1connect"
	"bidradar/pkg/mail"
	"bidradar/pkg/testutil/natstest"
	"bidradar/pkg/testutil/pgtest"
	"bidradar/services/auth/authsvc"
)

type captured struct {
	mu   sync.Mutex
	msgs []mail.Message
}

func (c *captured) Send(_ context.Context, m mail.Message) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.msgs = append(c.msgs, m)
	return nil
}

// The way an in-process launcher starts the service: env config plus an
// embedded NATS and a shared DATABASE_URL.
func TestInProcessLaunch(t *testing.T) {
	env := map[string]string{
		"DATABASE_URL": pgtest.NewDatabase(t), "NATS_URL": natstest.Start(t),
		"AUTH_ARGON2_MEMORY_KIB": "64", "AUTH_ARGON2_ITERATIONS": "1",
		"SERVICE_TOKEN_KEY": base64.StdEncoding.EncodeToString([]byte("service-token-key-of-the-tests-32b")),
	}
	cfg, err := authsvc.ConfigFromEnv(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	sink := &captured{}
	cfg.MailSender = sink
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	svc, err := authsvc.New(ctx, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- svc.Run(ctx, ln) }()
	base := "http://" + ln.Addr().String()
	for i := 0; ; i++ {
		resp, err := http.Get(base + "/healthz")
		if err == nil && resp.StatusCode == 200 {
			resp.Body.Close()
			break
		}
		if i > 200 {
			t.Fatal("not healthy")
		}
		time.Sleep(10 * time.Millisecond)
	}
	c := authv1connect.NewAuthServiceClient(http.DefaultClient, base)
	if _, err := c.Register(ctx, connect.NewRequest(&authv1.RegisterRequest{Username: "launcher", Email: "l@example.com", Password: "launcher password"})); err != nil {
		t.Fatal(err)
	}
	// Mail is sent by the mail workers, after the answer.
	n := 0
	for i := 0; i < 100 && n == 0; i++ {
		time.Sleep(20 * time.Millisecond)
		sink.mu.Lock()
		n = len(sink.msgs)
		sink.mu.Unlock()
	}
	if n != 1 || len(svc.PublicKeys()) != 1 || svc.Handler() == nil || svc.Ready(ctx) != nil {
		t.Fatalf("mails %d keys %d", n, len(svc.PublicKeys()))
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	svc.Close()

	// A restart keeps the development signing key (sessions survive).
	svc2, err := authsvc.New(context.Background(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer svc2.Close()
	for kid := range svc.PublicKeys() {
		if _, ok := svc2.PublicKeys()[kid]; !ok {
			t.Fatal("signing key changed across restarts")
		}
	}
}
