package line_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/url"
	"testing"
	"time"

	"bidradar/services/auth/internal/adapters/line"
	"bidradar/services/auth/internal/domain"
	"bidradar/services/auth/linetest"
)

const (
	channelID = "1234567890"
	secret    = "channel-secret-for-tests"
	redirect  = "http://127.0.0.1:8080/auth/line/callback"
)

func setup(t *testing.T) (*linetest.Fake, *line.Client) {
	f := linetest.Start(t, channelID, secret, redirect)
	c := line.New(line.Config{ChannelID: channelID, ChannelSecret: secret, RedirectURI: redirect,
		AuthorizeURL: f.AuthorizeURL(), TokenURL: f.TokenURL(), ProfileURL: f.ProfileURL()})
	return f, c
}

func challenge(v string) string {
	s := sha256.Sum256([]byte(v))
	return base64.RawURLEncoding.EncodeToString(s[:])
}

func TestAuthenticate(t *testing.T) {
	t.Parallel()
	f, c := setup(t)
	ctx := context.Background()
	u := linetest.User{Sub: "U4af4980629", Name: "สมชาย LINE", Picture: "https://profile.line-scdn.net/x", Email: "Somchai@Example.com"}
	au := c.AuthorizeURL("st", "nonce-1", challenge("verifier-1"))
	q, _ := url.Parse(au)
	if q.Query().Get("scope") != "openid profile email" || q.Query().Get("code_challenge_method") != "S256" {
		t.Fatalf("authorize URL %s", au)
	}
	code, state, err := f.Approve(au, u)
	if err != nil || state != "st" {
		t.Fatalf("approve: %v %q", err, state)
	}
	id, err := c.Authenticate(ctx, code, "verifier-1", "nonce-1")
	if err != nil {
		t.Fatal(err)
	}
	if id.LineID != u.Sub || id.Name != u.Name || id.Email != "somchai@example.com" || id.PictureURL != u.Picture {
		t.Fatalf("identity %+v", id)
	}
	// Codes are single use.
	if _, err := c.Authenticate(ctx, code, "verifier-1", "nonce-1"); !errors.Is(err, domain.ErrLineFailed) {
		t.Fatalf("reused code: %v", err)
	}
	// Wrong PKCE verifier.
	code, _, _ = f.Approve(c.AuthorizeURL("st", "nonce-1", challenge("verifier-1")), u)
	if _, err := c.Authenticate(ctx, code, "other-verifier", "nonce-1"); !errors.Is(err, domain.ErrLineFailed) {
		t.Fatalf("wrong verifier: %v", err)
	}
	// Wrong nonce.
	code, _, _ = f.Approve(c.AuthorizeURL("st", "nonce-1", challenge("v")), u)
	if _, err := c.Authenticate(ctx, code, "v", "nonce-2"); !errors.Is(err, domain.ErrLineFailed) {
		t.Fatalf("wrong nonce: %v", err)
	}
}

func TestVerifyIDToken(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	c := line.New(line.Config{ChannelID: channelID, ChannelSecret: secret, RedirectURI: redirect, Now: func() time.Time { return now }})
	base := func() linetest.Claims {
		return linetest.Claims{"iss": "https://access.line.me", "sub": "U1", "aud": channelID,
			"exp": now.Add(time.Hour).Unix(), "iat": now.Unix(), "nonce": "n", "name": "N"}
	}
	tests := []struct {
		name   string
		edit   func(linetest.Claims)
		secret string
		ok     bool
	}{
		{"valid", func(linetest.Claims) {}, secret, true},
		{"aud list", func(c linetest.Claims) { c["aud"] = []string{"x", channelID} }, secret, true},
		{"wrong secret", func(linetest.Claims) {}, "other", false},
		{"wrong issuer", func(c linetest.Claims) { c["iss"] = "https://evil.example" }, secret, false},
		{"wrong audience", func(c linetest.Claims) { c["aud"] = "999" }, secret, false},
		{"expired", func(c linetest.Claims) { c["exp"] = now.Add(-2 * time.Minute).Unix() }, secret, false},
		{"no exp", func(c linetest.Claims) { delete(c, "exp") }, secret, false},
		{"future iat", func(c linetest.Claims) { c["iat"] = now.Add(time.Hour).Unix() }, secret, false},
		{"wrong nonce", func(c linetest.Claims) { c["nonce"] = "m" }, secret, false},
		{"no sub", func(c linetest.Claims) { c["sub"] = "" }, secret, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cl := base()
			tt.edit(cl)
			tok, err := linetest.SignHS256(tt.secret, cl)
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.VerifyIDToken(tok, "n")
			if (err == nil) != tt.ok {
				t.Fatalf("err %v, want ok=%v", err, tt.ok)
			}
		})
	}
	for _, bad := range []string{"", "a.b", "a.b.c", "eyJhbGciOiJub25lIn0.e30."} {
		if _, err := c.VerifyIDToken(bad, "n"); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

func TestNotConfigured(t *testing.T) {
	t.Parallel()
	c := line.New(line.Config{})
	if c.Configured() {
		t.Fatal("configured without channel")
	}
	if _, err := c.Authenticate(context.Background(), "c", "v", "n"); !errors.Is(err, domain.ErrLineNotConfigured) {
		t.Fatal(err)
	}
}
