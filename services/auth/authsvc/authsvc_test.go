package authsvc_test

import (
	"context"
	"encoding/base64"
	"log/slog"
	"net/http"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"

	authv1 "bidradar/gen/auth/v1"
	"bidradar/gen/auth/v1/authv1connect"
	"bidradar/pkg/authn"
	"bidradar/pkg/mail"
	"bidradar/pkg/testutil/natstest"
	"bidradar/pkg/testutil/pgtest"
	"bidradar/services/auth/authsvc"
)

// captured is a mail sender that keeps what it is given and tells got.
type captured struct {
	mu   sync.Mutex
	msgs []mail.Message
	got  chan struct{}
}

func (c *captured) Send(_ context.Context, m mail.Message) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.msgs = append(c.msgs, m)
	select {
	case c.got <- struct{}{}:
	default:
	}
	return nil
}

// The way an in-process launcher starts the service: env config plus an
// embedded NATS and a shared DATABASE_URL.
func TestInProcessLaunch(t *testing.T) {
	vars := map[string]string{
		"DATABASE_URL": pgtest.NewDatabase(t), "NATS_URL": natstest.Start(t),
		"AUTH_ARGON2_MEMORY_KIB": "64", "AUTH_ARGON2_ITERATIONS": "1",
		"SERVICE_TOKEN_KEY": base64.StdEncoding.EncodeToString([]byte(serviceKeyText)),
	}
	sink := &captured{got: make(chan struct{}, 1)}
	spec := authsvc.NewSpec(authsvc.Options{MailSender: sink})
	addr, stop := run(t, spec, vars, slog.New(slog.DiscardHandler)) // ready: database and NATS
	ctx := context.Background()
	c := authv1connect.NewAuthServiceClient(http.DefaultClient, "http://"+addr)
	if _, err := c.Register(ctx, connect.NewRequest(&authv1.RegisterRequest{Username: "launcher", Email: "l@example.com", Password: "launcher password"})); err != nil {
		t.Fatal(err)
	}
	// Mail is sent by the mail job, after the answer.
	select {
	case <-sink.got:
	case <-time.After(10 * time.Second):
		t.Fatal("no mail sent")
	}
	sink.mu.Lock()
	n := len(sink.msgs)
	sink.mu.Unlock()
	kids := publicKeyIDs(t, c)
	if n != 1 || len(kids) != 1 {
		t.Fatalf("mails %d keys %v", n, kids)
	}
	stop()

	// A restart keeps the development signing key (sessions survive).
	addr, _ = run(t, spec, vars, slog.New(slog.DiscardHandler))
	again := publicKeyIDs(t, authv1connect.NewAuthServiceClient(http.DefaultClient, "http://"+addr))
	if len(again) != 1 || again[0] != kids[0] {
		t.Fatalf("signing key changed across restarts: %v, then %v", kids, again)
	}
}

func publicKeyIDs(t *testing.T, c authv1connect.AuthServiceClient) []string {
	t.Helper()
	req := connect.NewRequest(&authv1.GetPublicKeysRequest{}) // an internal RPC: another service's call
	req.Header().Set(authn.ServiceTokenHeader, asService(t, "projects").Get(authn.ServiceTokenHeader))
	res, err := c.GetPublicKeys(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	var kids []string
	for _, k := range res.Msg.GetKeys() {
		kids = append(kids, k.GetKid())
	}
	return kids
}
