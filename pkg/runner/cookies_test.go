package runner_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/jackc/pgx/v5/pgxpool"

	authv1 "bidradar/gen/auth/v1"
	"bidradar/gen/auth/v1/authv1connect"
	"bidradar/pkg/config"
	"bidradar/pkg/runner"
	"bidradar/pkg/server"
	"bidradar/pkg/testutil/pgtest"
)

// With APP_ENV=production a service reads only the __Host- access cookie:
// a plain access_token cookie (plantable by a sibling subdomain or a
// plain-http page) is not even looked at. The answers tell which cookie was
// read: no token is "Authentication required", an unverifiable one "Could
// not validate credentials".
func TestProductionServicesIgnorePlainAccessCookie(t *testing.T) {
	db := pgtest.NewDatabase(t)
	for _, tt := range []struct {
		appEnv, cookie, want string
	}{
		{"production", "access_token=x.y.z", "Authentication required"},
		{"production", "__Host-access_token=x.y.z", "Could not validate credentials"},
		{"", "access_token=x.y.z", "Could not validate credentials"},
	} {
		vars := map[string]string{"DATABASE_URL": db, "AUTH_TARGET": "127.0.0.1:1", "APP_ENV": tt.appEnv, "SERVICE_TOKEN_KEY": testServiceKey}
		se := runner.ReadServiceEnv(config.FromGetenv(func(k string) string { return vars[k] }))
		log := slog.New(slog.NewTextHandler(io.Discard, nil))
		srv, _, err := runner.StartService(context.Background(), log, se, func(ctx context.Context, url string) (*pgxpool.Pool, error) {
			return pgxpool.New(ctx, url)
		})
		if err != nil {
			t.Fatal(err)
		}
		opts, err := srv.HandlerOptions(authv1connect.AuthServiceName)
		if err != nil {
			t.Fatal(err)
		}
		srv.Mount(authv1connect.NewAuthServiceHandler(authv1connect.UnimplementedAuthServiceHandler{}, opts...))
		ln, err := server.Listen("127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- srv.Run(ctx, ln) }()

		client := authv1connect.NewAuthServiceClient(http.DefaultClient, "http://"+ln.Addr().String())
		req := connect.NewRequest(&authv1.GetMeRequest{})
		req.Header().Set("Cookie", tt.cookie)
		_, err = client.GetMe(context.Background(), req)
		var ce *connect.Error
		if !errors.As(err, &ce) || ce.Code() != connect.CodeUnauthenticated || ce.Message() != tt.want {
			t.Errorf("APP_ENV=%q, Cookie %q: %v; want %q", tt.appEnv, tt.cookie, err, tt.want)
		}
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("server did not stop")
		}
	}
}

// testServiceKey is the tests' SERVICE_TOKEN_KEY (32 bytes, base64).
const testServiceKey = "cnVubmVyLXRlc3RzLXNlcnZpY2UtdG9rZW4ta2V5LTMy"
