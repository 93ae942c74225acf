// Package linetest is a local fake of LINE Login v2.1 for tests: it checks
// the authorization request the app built, issues codes, checks the token
// exchange (client credentials, redirect URI and PKCE S256 verifier) and
// answers with real HS256 ID tokens signed with the channel secret.
package linetest

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// User is a LINE account of the fake.
type User struct {
	Sub     string
	Name    string
	Picture string
	Email   string
}

// Claims are the ID token claims the fake signs; Tamper may change them.
type Claims map[string]any

// Fake is the fake LINE server.
type Fake struct {
	ChannelID     string
	ChannelSecret string
	RedirectURI   string
	// Tamper, when set, edits the claims of the next ID tokens (tests of
	// the verifier: wrong audience, expired, other nonce...).
	Tamper func(Claims)

	srv   *httptest.Server
	mu    sync.Mutex
	codes map[string]grant
	// Exchanges counts successful token exchanges.
	exchanges int
}

type grant struct {
	user      User
	nonce     string
	challenge string
	redirect  string
}

// Start starts the fake; it stops when the test ends.
func Start(t testing.TB, channelID, secret, redirectURI string) *Fake {
	t.Helper()
	f := &Fake{ChannelID: channelID, ChannelSecret: secret, RedirectURI: redirectURI, codes: map[string]grant{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /oauth2/v2.1/token", f.token)
	mux.HandleFunc("GET /v2/profile", f.profile)
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

// AuthorizeURL, TokenURL and ProfileURL are the fake's endpoints.
func (f *Fake) AuthorizeURL() string { return f.srv.URL + "/oauth2/v2.1/authorize" }

// TokenURL is the token endpoint.
func (f *Fake) TokenURL() string { return f.srv.URL + "/oauth2/v2.1/token" }

// ProfileURL is the profile endpoint.
func (f *Fake) ProfileURL() string { return f.srv.URL + "/v2/profile" }

// Exchanges returns how many codes were exchanged successfully.
func (f *Fake) Exchanges() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.exchanges
}

// Approve plays the browser and the user consenting on LINE: it checks the
// authorization URL the app produced and returns the code and state LINE
// would redirect back with.
func (f *Fake) Approve(authorizeURL string, u User) (code, state string, err error) {
	parsed, err := url.Parse(authorizeURL)
	if err != nil {
		return "", "", err
	}
	if parsed.Scheme+"://"+parsed.Host+parsed.Path != f.AuthorizeURL() {
		return "", "", fmt.Errorf("linetest: authorize endpoint %q", parsed.Path)
	}
	q := parsed.Query()
	want := map[string]string{
		"response_type": "code", "client_id": f.ChannelID, "redirect_uri": f.RedirectURI,
		"scope": "openid profile email", "code_challenge_method": "S256",
	}
	for k, v := range want {
		if q.Get(k) != v {
			return "", "", fmt.Errorf("linetest: %s = %q, want %q", k, q.Get(k), v)
		}
	}
	for _, k := range []string{"state", "nonce", "code_challenge"} {
		if q.Get(k) == "" {
			return "", "", fmt.Errorf("linetest: missing %s", k)
		}
	}
	code = randomHex()
	f.mu.Lock()
	f.codes[code] = grant{user: u, nonce: q.Get("nonce"), challenge: q.Get("code_challenge"), redirect: q.Get("redirect_uri")}
	f.mu.Unlock()
	return code, q.Get("state"), nil
}

func randomHex() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (f *Fake) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		writeJSON(w, 400, map[string]string{"error": "invalid_request"})
		return
	}
	fail := func(desc string) {
		writeJSON(w, 400, map[string]string{"error": "invalid_grant", "error_description": desc})
	}
	if r.PostForm.Get("grant_type") != "authorization_code" {
		fail("grant_type")
		return
	}
	if r.PostForm.Get("client_id") != f.ChannelID || r.PostForm.Get("client_secret") != f.ChannelSecret {
		writeJSON(w, 401, map[string]string{"error": "invalid_client"})
		return
	}
	code := r.PostForm.Get("code")
	f.mu.Lock()
	g, ok := f.codes[code]
	delete(f.codes, code) // single use
	f.mu.Unlock()
	if !ok {
		fail("unknown code")
		return
	}
	if r.PostForm.Get("redirect_uri") != g.redirect {
		fail("redirect_uri mismatch")
		return
	}
	sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
	if base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge {
		fail("code_verifier mismatch")
		return
	}
	now := time.Now()
	claims := Claims{
		"iss": "https://access.line.me", "sub": g.user.Sub, "aud": f.ChannelID,
		"exp": now.Add(time.Hour).Unix(), "iat": now.Unix(), "nonce": g.nonce, "amr": []string{"linesso"},
		"name": g.user.Name, "picture": g.user.Picture,
	}
	if g.user.Email != "" {
		claims["email"] = g.user.Email
	}
	if f.Tamper != nil {
		f.Tamper(claims)
	}
	idToken, err := f.Sign(claims)
	if err != nil {
		writeJSON(w, 500, map[string]string{"error": err.Error()})
		return
	}
	f.mu.Lock()
	f.exchanges++
	f.mu.Unlock()
	writeJSON(w, 200, map[string]any{
		"access_token": "at-" + g.user.Sub, "token_type": "Bearer", "expires_in": 2592000,
		"refresh_token": randomHex(), "scope": "openid profile email", "id_token": idToken,
	})
}

func (f *Fake) profile(w http.ResponseWriter, r *http.Request) {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer at-")
	if !ok || tok == "" {
		writeJSON(w, 401, map[string]string{"message": "invalid token"})
		return
	}
	writeJSON(w, 200, map[string]string{"userId": tok, "displayName": "", "pictureUrl": ""})
}

// Sign returns an HS256 JWT of claims signed with the channel secret.
func (f *Fake) Sign(claims Claims) (string, error) {
	return SignHS256(f.ChannelSecret, claims)
}

// SignHS256 returns an HS256 JWT of claims signed with secret.
func SignHS256(secret string, claims Claims) (string, error) {
	if secret == "" {
		return "", errors.New("linetest: empty secret")
	}
	h, _ := json.Marshal(map[string]string{"alg": "HS256", "typ": "JWT"})
	p, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	b64 := base64.RawURLEncoding
	signing := b64.EncodeToString(h) + "." + b64.EncodeToString(p)
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(signing))
	return signing + "." + b64.EncodeToString(m.Sum(nil)), nil
}
