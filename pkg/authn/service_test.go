package authn_test

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"bidradar/pkg/authn"
)

func TestServiceTokens(t *testing.T) {
	t.Parallel()
	if _, err := authn.NewServiceKey(make([]byte, 31)); err == nil {
		t.Fatal("a 31-byte key accepted")
	}
	if _, err := authn.ParseServiceKey("not base64!"); err == nil {
		t.Fatal("a key that is not base64 accepted")
	}
	key, err := authn.ParseServiceKey(base64.RawURLEncoding.EncodeToString([]byte(strings.Repeat("s", 32))))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	tok, err := key.Sign("notification", "auth.v1.AuthService", now)
	if err != nil {
		t.Fatal(err)
	}
	c, err := key.Verify(tok, "auth.v1.AuthService", now.Add(59*time.Second))
	if err != nil || c.Caller != "notification" || c.Audience != "auth.v1.AuthService" {
		t.Fatalf("verify: %+v %v", c, err)
	}
	// A replay is bounded by the token's minute (plus the clock leeway).
	if _, err := key.Verify(tok, "auth.v1.AuthService", now.Add(authn.ServiceTokenTTL+authn.DefaultLeeway)); !errors.Is(err, authn.ErrTokenExpired) {
		t.Fatalf("expired: %v", err)
	}
	if _, err := key.Verify(tok, "projects.v1.ProjectsService", now); err == nil {
		t.Fatal("a token for auth accepted by projects")
	}
	parts := strings.Split(tok, ".")
	for name, bad := range map[string]string{
		"truncated":       parts[0] + "." + parts[1],
		"signature":       parts[0] + "." + parts[1] + "." + base64.RawURLEncoding.EncodeToString(make([]byte, 32)),
		"alg none":        base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"svc+jwt"}`)) + "." + parts[1] + ".",
		"access token":    base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"EdDSA","typ":"JWT","kid":"k"}`)) + "." + parts[1] + "." + parts[2],
		"too long":        strings.Repeat("a", authn.MaxTokenSize+1),
		"empty":           "",
		"payload swapped": parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(`{"iss":"bidradar-service","sub":"x","aud":"auth.v1.AuthService","iat":1,"exp":9999999999}`)) + "." + parts[2],
	} {
		if _, err := key.Verify(bad, "auth.v1.AuthService", now); !errors.Is(err, authn.ErrInvalidToken) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// A token names its caller.
	if _, err := key.Sign("", "auth.v1.AuthService", now); err == nil {
		t.Error("a token without a caller signed")
	}

	src := authn.NewServiceTokens(key, "projects")
	a, _ := src.Token("interests.v1.InterestsService")
	b, _ := src.Token("interests.v1.InterestsService")
	other, _ := src.Token("auth.v1.AuthService")
	if a != b || a == other {
		t.Fatal("tokens are reused per audience, and differ between audiences")
	}
	if _, err := key.Verify(other, "auth.v1.AuthService", time.Now()); err != nil {
		t.Fatal(err)
	}
}
