package runner_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"connectrpc.com/connect"

	authv1 "bidradar/gen/auth/v1"
	"bidradar/gen/auth/v1/authv1connect"
	"bidradar/pkg/authn"
	"bidradar/pkg/runner"
	"bidradar/pkg/server"
)

// serve runs srv on a loopback port until the test ends.
func serve(t *testing.T, srv *runner.RPCServer) string {
	t.Helper()
	ln, err := server.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	return ln.Addr().String()
}

// testIdentity is a service's name with the tests' service-token key.
func testIdentity(t *testing.T, name string) runner.Identity {
	t.Helper()
	key, err := authn.NewServiceKey([]byte("service-token-key-of-the-tests-32b"))
	if err != nil {
		t.Fatal(err)
	}
	return runner.Identity{Name: name, Key: key}
}

// issuer is the RPC server of the service that signs access tokens.
func issuer(t *testing.T, keys authn.KeySource) *runner.RPCServer {
	t.Helper()
	srv, err := runner.NewIssuerRPCServer(slog.New(slog.DiscardHandler), testIdentity(t, "auth"), keys, authn.Admins{})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// The issuer of the access tokens (auth) verifies them with its own key,
// with no AUTH_TARGET to fetch keys from: its signer's tokens pass the
// access rules, another key's do not.
func TestIssuerVerifiesWithItsOwnKeys(t *testing.T) {
	signer, other := newSigner(t, "own"), newSigner(t, "other")
	srv := issuer(t, authn.StaticKeys{"own": signer.PublicKey()})
	opts, err := srv.HandlerOptions(authv1connect.AuthServiceName)
	if err != nil {
		t.Fatal(err)
	}
	srv.Mount(authv1connect.NewAuthServiceHandler(authv1connect.UnimplementedAuthServiceHandler{}, opts...))
	client := authv1connect.NewAuthServiceClient(http.DefaultClient, "http://"+serve(t, srv))

	getMe := func(s *authn.Signer) connect.Code {
		now := time.Now()
		tok, err := s.Sign(authn.Claims{UserID: "u1", IssuedAt: now, ExpiresAt: now.Add(time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		req := connect.NewRequest(&authv1.GetMeRequest{})
		req.Header().Set("Authorization", "Bearer "+tok)
		_, err = client.GetMe(context.Background(), req)
		var ce *connect.Error
		if !errors.As(err, &ce) {
			t.Fatalf("GetMe: %v", err)
		}
		return ce.Code()
	}
	if code := getMe(signer); code != connect.CodeUnimplemented { // past authn, into the handler
		t.Fatalf("own token: %v", code)
	}
	if code := getMe(other); code != connect.CodeUnauthenticated {
		t.Fatalf("another key's token: %v", code)
	}
}

func newSigner(t *testing.T, kid string) *authn.Signer {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return authn.NewSigner(priv, kid)
}
