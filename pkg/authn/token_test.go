package authn_test

import (
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"bidradar/pkg/authn"
)

var (
	seed    = [32]byte{1, 2, 3}
	priv    = ed25519.NewKeyFromSeed(seed[:])
	pub     = priv.Public().(ed25519.PublicKey)
	otherPK = ed25519.NewKeyFromSeed(make([]byte, 32))
	t0      = time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
)

func claims() authn.Claims {
	return authn.Claims{
		UserID: "u-1", Email: "somchai@example.co.th", Username: "somchai", Provider: authn.ProviderPassword,
		ID: "jti-1", IssuedAt: t0, ExpiresAt: t0.Add(15 * time.Minute),
	}
}

func sign(t testing.TB, c authn.Claims) string {
	t.Helper()
	tok, err := authn.NewSigner(priv, "k1").Sign(c)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// raw builds a token from arbitrary header and payload JSON, signed by key.
func raw(key ed25519.PrivateKey, header, payload string) string {
	enc := base64.RawURLEncoding
	s := enc.EncodeToString([]byte(header)) + "." + enc.EncodeToString([]byte(payload))
	return s + "." + enc.EncodeToString(ed25519.Sign(key, []byte(s)))
}

// unsigned builds an "alg":"none" style token with an empty signature.
func unsigned(header, payload string) string {
	enc := base64.RawURLEncoding
	return enc.EncodeToString([]byte(header)) + "." + enc.EncodeToString([]byte(payload)) + "."
}

func payloadJSON(mut func(m map[string]any)) string {
	m := map[string]any{
		"sub": "u-1", "iss": authn.Issuer, "aud": authn.Audience,
		"iat": t0.Unix(), "exp": t0.Add(15 * time.Minute).Unix(),
	}
	if mut != nil {
		mut(m)
	}
	b, _ := json.Marshal(m)
	return string(b)
}

const goodHeader = `{"alg":"EdDSA","typ":"JWT","kid":"k1"}`

func verifier() *authn.Verifier {
	return authn.NewVerifier(authn.StaticKeys{"k1": pub, "k2": otherPK.Public().(ed25519.PublicKey)})
}

func TestSignVerifyRoundTrip(t *testing.T) {
	t.Parallel()
	tok := sign(t, claims())
	parts := strings.Split(tok, ".")
	hb, _ := base64.RawURLEncoding.DecodeString(parts[0])
	if string(hb) != goodHeader {
		t.Fatalf("header = %s", hb)
	}
	pb, _ := base64.RawURLEncoding.DecodeString(parts[1])
	var p map[string]any
	_ = json.Unmarshal(pb, &p)
	for k, want := range map[string]any{
		"sub": "u-1", "email": "somchai@example.co.th", "preferred_username": "somchai", "prov": "password",
		"jti": "jti-1", "iss": "bidradar-auth", "aud": "bidradar", "iat": float64(t0.Unix()),
	} {
		if p[k] != want {
			t.Errorf("claim %s = %v, want %v", k, p[k], want)
		}
	}
	got, err := verifier().Verify(tok, t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if got != claims() {
		t.Fatalf("claims = %+v", got)
	}
}

func TestVerifyRejects(t *testing.T) {
	t.Parallel()
	good := sign(t, claims())
	parts := strings.Split(good, ".")
	hs256 := func() string {
		h := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT","kid":"k1"}`))
		s := h + "." + parts[1]
		m := hmac.New(sha256.New, pub) // the classic confusion: public key as HMAC secret
		m.Write([]byte(s))
		return s + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
	}()
	flip := func(s string) string {
		b := []byte(s)
		if b[5] == 'A' {
			b[5] = 'B'
		} else {
			b[5] = 'A'
		}
		return string(b)
	}
	tests := []struct {
		name    string
		token   string
		now     time.Time
		expired bool
	}{
		{"empty", "", t0, false},
		{"two parts", parts[0] + "." + parts[1], t0, false},
		{"four parts", good + ".x", t0, false},
		{"tampered payload", parts[0] + "." + flip(parts[1]) + "." + parts[2], t0, false},
		{"tampered signature", parts[0] + "." + parts[1] + "." + flip(parts[2]), t0, false},
		{"padded base64", good + "==", t0, false},
		{"alg none", unsigned(`{"alg":"none","kid":"k1"}`, payloadJSON(nil)), t0, false},
		{"alg none signed", raw(priv, `{"alg":"none","kid":"k1"}`, payloadJSON(nil)), t0, false},
		{"alg HS256 with public key", hs256, t0, false},
		{"unknown kid", raw(priv, `{"alg":"EdDSA","kid":"k9"}`, payloadJSON(nil)), t0, false},
		{"wrong key for kid", raw(priv, `{"alg":"EdDSA","kid":"k2"}`, payloadJSON(nil)), t0, false},
		{"crit header", raw(priv, `{"alg":"EdDSA","kid":"k1","crit":["x"]}`, payloadJSON(nil)), t0, false},
		{"wrong audience", raw(priv, goodHeader, payloadJSON(func(m map[string]any) { m["aud"] = "other" })), t0, false},
		{"audience list without ours", raw(priv, goodHeader, payloadJSON(func(m map[string]any) { m["aud"] = []string{"a", "b"} })), t0, false},
		{"no audience", raw(priv, goodHeader, payloadJSON(func(m map[string]any) { delete(m, "aud") })), t0, false},
		{"wrong issuer", raw(priv, goodHeader, payloadJSON(func(m map[string]any) { m["iss"] = "evil" })), t0, false},
		{"no subject", raw(priv, goodHeader, payloadJSON(func(m map[string]any) { delete(m, "sub") })), t0, false},
		{"no expiry", raw(priv, goodHeader, payloadJSON(func(m map[string]any) { delete(m, "exp") })), t0, false},
		{"not before in future", raw(priv, goodHeader, payloadJSON(func(m map[string]any) { m["nbf"] = t0.Add(time.Hour).Unix() })), t0, false},
		{"issued in future", raw(priv, goodHeader, payloadJSON(func(m map[string]any) { m["iat"] = t0.Add(time.Hour).Unix() })), t0, false},
		{"payload not json", raw(priv, goodHeader, `not json`), t0, false},
		{"expired beyond leeway", good, t0.Add(15*time.Minute + 30*time.Second), true},
		{"oversized", raw(priv, goodHeader, payloadJSON(func(m map[string]any) { m["pad"] = strings.Repeat("x", 4096) })), t0, false},
	}
	v := verifier()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := v.Verify(tt.token, tt.now)
			if !errors.Is(err, authn.ErrInvalidToken) {
				t.Fatalf("err = %v, want ErrInvalidToken", err)
			}
			if errors.Is(err, authn.ErrTokenExpired) != tt.expired {
				t.Fatalf("expired = %v, want %v (err %v)", !tt.expired, tt.expired, err)
			}
		})
	}
}

func TestVerifyAccepts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		token string
		now   time.Time
	}{
		{"within exp leeway", sign(t, claims()), t0.Add(15*time.Minute + 29*time.Second)},
		{"iat slightly ahead (clock skew)", sign(t, claims()), t0.Add(-20 * time.Second)},
		{"audience as list", raw(priv, goodHeader, payloadJSON(func(m map[string]any) { m["aud"] = []string{"x", "bidradar"} })), t0},
		{"nbf reached", raw(priv, goodHeader, payloadJSON(func(m map[string]any) { m["nbf"] = t0.Unix() })), t0},
	}
	v := verifier()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if _, err := v.Verify(tt.token, tt.now); err != nil {
				t.Fatal(err)
			}
		})
	}
	if _, err := authn.NewVerifier(authn.StaticKeys{"k1": pub}, authn.WithLeeway(0)).
		Verify(sign(t, claims()), t0.Add(15*time.Minute)); !errors.Is(err, authn.ErrTokenExpired) {
		t.Fatalf("WithLeeway(0): err = %v", err)
	}
}

func TestSignRejectsBadInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		signer *authn.Signer
		mut    func(*authn.Claims)
	}{
		{"short key", authn.NewSigner(priv[:10], "k1"), nil},
		{"no kid", authn.NewSigner(priv, ""), nil},
		{"no user", authn.NewSigner(priv, "k1"), func(c *authn.Claims) { c.UserID = "" }},
		{"no iat", authn.NewSigner(priv, "k1"), func(c *authn.Claims) { c.IssuedAt = time.Time{} }},
		{"exp before iat", authn.NewSigner(priv, "k1"), func(c *authn.Claims) { c.ExpiresAt = t0.Add(-time.Second) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := claims()
			if tt.mut != nil {
				tt.mut(&c)
			}
			if _, err := tt.signer.Sign(c); err == nil {
				t.Fatal("Sign succeeded")
			}
		})
	}
	s := authn.NewSigner(priv, "k1")
	if s.KeyID() != "k1" || !s.PublicKey().Equal(pub) {
		t.Fatal("KeyID/PublicKey mismatch")
	}
}

func TestKeyRingReplace(t *testing.T) {
	t.Parallel()
	var zero authn.KeyRing
	if _, ok := zero.PublicKey("k1"); ok {
		t.Fatal("zero KeyRing has a key")
	}
	src := map[string]ed25519.PublicKey{"k1": pub}
	ring := authn.NewKeyRing(src)
	src["k1"] = nil // the ring keeps its own copy
	v := authn.NewVerifier(ring)
	tok := sign(t, claims())
	if _, err := v.Verify(tok, t0); err != nil {
		t.Fatal(err)
	}

	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 200 {
				_, _ = v.Verify(tok, t0)
			}
		})
	}
	wg.Go(func() {
		for range 200 {
			ring.Replace(map[string]ed25519.PublicKey{"k1": pub, "k2": pub})
		}
	})
	wg.Wait()

	ring.Replace(map[string]ed25519.PublicKey{"k2": pub})
	if _, err := v.Verify(tok, t0); !errors.Is(err, authn.ErrInvalidToken) {
		t.Fatalf("after rotation err = %v", err)
	}
}

func FuzzVerify(f *testing.F) {
	f.Add(sign(f, claims()))
	f.Add(raw(priv, `{"alg":"none"}`, `{}`))
	f.Add("a.b.c")
	f.Add("..")
	f.Add(raw(priv, goodHeader, `{"aud":[1,{}],"exp":1e400}`))
	f.Add(raw(priv, goodHeader, `{"sub":"x","iss":"bidradar-auth","aud":"bidradar","exp":-9223372036854775808}`))
	v := verifier()
	f.Fuzz(func(t *testing.T, tok string) {
		c, err := v.Verify(tok, t0)
		if err == nil && c.UserID == "" {
			t.Fatal("accepted a token without subject")
		}
		if err != nil && !errors.Is(err, authn.ErrInvalidToken) {
			t.Fatalf("error not wrapping ErrInvalidToken: %v", err)
		}
	})
}
