// Package authkeys keeps a service's copy of the auth service's access-token
// verification keys fresh, so every service verifies tokens locally
// (docs/architecture.md#tokens-and-sessions).
package authkeys

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"connectrpc.com/connect"

	authv1 "bidradar/gen/auth/v1"
	"bidradar/gen/auth/v1/authv1connect"
	"bidradar/pkg/authn"
)

// Fetcher loads the keys from the auth service at target (host:port, h2c).
type Fetcher struct {
	client authv1connect.AuthServiceClient
	ring   *authn.KeyRing
	log    *slog.Logger
}

// New returns a Fetcher whose Ring starts empty until Load succeeds;
// httpClient presents the service's token (GetPublicKeys is internal).
func New(httpClient *http.Client, target string, log *slog.Logger) *Fetcher {
	c := *httpClient
	c.Timeout = 5 * time.Second
	return &Fetcher{
		client: authv1connect.NewAuthServiceClient(&c, "http://"+target, connect.WithGRPC()),
		ring:   authn.NewKeyRing(nil),
		log:    log,
	}
}

// Ring is the key source to hand to authn.NewVerifier.
func (f *Fetcher) Ring() *authn.KeyRing { return f.ring }

// Load fetches the keys once.
func (f *Fetcher) Load(ctx context.Context) error {
	resp, err := f.client.GetPublicKeys(ctx, connect.NewRequest(&authv1.GetPublicKeysRequest{}))
	if err != nil {
		return fmt.Errorf("fetch auth public keys: %w", err)
	}
	keys := make(map[string]ed25519.PublicKey, len(resp.Msg.GetKeys()))
	for _, k := range resp.Msg.GetKeys() {
		raw, err := base64.StdEncoding.DecodeString(k.GetPublicKey())
		if err != nil || len(raw) != ed25519.PublicKeySize {
			return fmt.Errorf("auth public key %q is not an Ed25519 key", k.GetKid())
		}
		keys[k.GetKid()] = ed25519.PublicKey(raw)
	}
	if len(keys) == 0 {
		return fmt.Errorf("auth service returned no public keys")
	}
	f.ring.Replace(keys)
	return nil
}

// Run loads the keys until the first success (retrying every second, so a
// service may start before auth), then refreshes them every interval for rotation.
func (f *Fetcher) Run(ctx context.Context, interval time.Duration) {
	wait := time.Duration(0)
	loaded := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		if err := f.Load(ctx); err != nil {
			if ctx.Err() == nil {
				f.log.WarnContext(ctx, "auth keys not loaded", "err", err)
			}
			if !loaded {
				wait = time.Second
				continue
			}
		} else {
			loaded = true
		}
		wait = interval
	}
}
