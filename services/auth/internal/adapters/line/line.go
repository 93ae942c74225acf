// Package line is a LINE Login v2.1 client: the authorization URL (with
// state, nonce and PKCE S256), the code exchange and the ID token check
// (HS256 with the channel secret, issuer, audience, expiry and nonce).
package line

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"bidradar/services/auth/internal/domain"
)

// LINE's defaults.
const (
	DefaultAuthorizeURL = "https://access.line.me/oauth2/v2.1/authorize"
	DefaultTokenURL     = "https://api.line.me/oauth2/v2.1/token"
	Issuer              = "https://access.line.me"
	Scope               = "openid profile email"
)

// Config configures the client. An empty ChannelID means LINE Login is
// not configured (every call answers domain.ErrLineNotConfigured).
type Config struct {
	ChannelID     string
	ChannelSecret string
	RedirectURI   string
	AuthorizeURL  string
	TokenURL      string
	// ProfileURL, when set, is read with the access token to complete the
	// display name and picture (https://api.line.me/v2/profile).
	ProfileURL string
	HTTPClient *http.Client
	Now        func() time.Time
}

// Client talks to LINE.
type Client struct {
	cfg Config
}

// New returns a client; URLs default to LINE's.
func New(cfg Config) *Client {
	if cfg.AuthorizeURL == "" {
		cfg.AuthorizeURL = DefaultAuthorizeURL
	}
	if cfg.TokenURL == "" {
		cfg.TokenURL = DefaultTokenURL
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Client{cfg: cfg}
}

// Configured reports whether a channel is set up.
func (c *Client) Configured() bool {
	return c.cfg.ChannelID != "" && c.cfg.ChannelSecret != "" && c.cfg.RedirectURI != ""
}

// AuthorizeURL builds the authorization request.
func (c *Client) AuthorizeURL(state, nonce, codeChallenge string) string {
	q := url.Values{}
	q.Set("response_type", "code")
	q.Set("client_id", c.cfg.ChannelID)
	q.Set("redirect_uri", c.cfg.RedirectURI)
	q.Set("state", state)
	q.Set("scope", Scope)
	q.Set("nonce", nonce)
	q.Set("code_challenge", codeChallenge)
	q.Set("code_challenge_method", "S256")
	sep := "?"
	if strings.Contains(c.cfg.AuthorizeURL, "?") {
		sep = "&"
	}
	return c.cfg.AuthorizeURL + sep + q.Encode()
}

type tokenResponse struct {
	AccessToken string `json:"access_token"`
	IDToken     string `json:"id_token"`
	TokenType   string `json:"token_type"`
}

const maxBody = 1 << 20

// Authenticate exchanges code and verifies the ID token.
func (c *Client) Authenticate(ctx context.Context, code, codeVerifier, nonce string) (domain.LineIdentity, error) {
	if !c.Configured() {
		return domain.LineIdentity{}, domain.ErrLineNotConfigured
	}
	form := url.Values{}
	form.Set("grant_type", "authorization_code")
	form.Set("code", code)
	form.Set("redirect_uri", c.cfg.RedirectURI)
	form.Set("client_id", c.cfg.ChannelID)
	form.Set("client_secret", c.cfg.ChannelSecret)
	form.Set("code_verifier", codeVerifier)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.TokenURL, strings.NewReader(form.Encode()))
	if err != nil {
		return domain.LineIdentity{}, fmt.Errorf("line: token request: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	var tr tokenResponse
	if err := c.do(req, &tr); err != nil {
		return domain.LineIdentity{}, err
	}
	if tr.IDToken == "" {
		return domain.LineIdentity{}, domain.ErrLineFailed
	}
	id, err := c.VerifyIDToken(tr.IDToken, nonce)
	if err != nil {
		return domain.LineIdentity{}, err
	}
	if c.cfg.ProfileURL != "" && tr.AccessToken != "" {
		if err := c.completeProfile(ctx, tr.AccessToken, &id); err != nil {
			return domain.LineIdentity{}, err
		}
	}
	return id, nil
}

func (c *Client) do(req *http.Request, out any) error {
	resp, err := c.cfg.HTTPClient.Do(req)
	if err != nil {
		if req.Context().Err() != nil {
			return req.Context().Err()
		}
		return domain.ErrLineUnavailable
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return domain.ErrLineUnavailable
	}
	switch {
	case resp.StatusCode >= 500:
		return domain.ErrLineUnavailable
	case resp.StatusCode != http.StatusOK:
		// invalid_grant and friends: the code is bad, expired or reused.
		return domain.ErrLineFailed
	}
	if err := json.Unmarshal(body, out); err != nil {
		return domain.ErrLineFailed
	}
	return nil
}

type profile struct {
	UserID      string `json:"userId"`
	DisplayName string `json:"displayName"`
	PictureURL  string `json:"pictureUrl"`
}

func (c *Client) completeProfile(ctx context.Context, accessToken string, id *domain.LineIdentity) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.cfg.ProfileURL, nil)
	if err != nil {
		return fmt.Errorf("line: profile request: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+accessToken)
	var p profile
	if err := c.do(req, &p); err != nil {
		return err
	}
	if p.UserID != "" && p.UserID != id.LineID {
		return domain.ErrLineFailed
	}
	if p.DisplayName != "" {
		id.Name = p.DisplayName
	}
	if p.PictureURL != "" {
		id.PictureURL = p.PictureURL
	}
	return nil
}

// idClaims are the ID token claims we read.
type idClaims struct {
	Iss     string          `json:"iss"`
	Sub     string          `json:"sub"`
	Aud     json.RawMessage `json:"aud"`
	Exp     int64           `json:"exp"`
	Iat     int64           `json:"iat"`
	Nonce   string          `json:"nonce"`
	Name    string          `json:"name"`
	Picture string          `json:"picture"`
	Email   string          `json:"email"`
}

// leeway tolerates small clock differences with LINE.
const leeway = 60 * time.Second

var errIDToken = domain.ErrLineFailed

// VerifyIDToken checks an ID token: HS256 signed with the channel secret,
// iss https://access.line.me, aud = channel id, not expired, nonce equal.
func (c *Client) VerifyIDToken(raw, nonce string) (domain.LineIdentity, error) {
	if len(raw) > 16<<10 {
		return domain.LineIdentity{}, errIDToken
	}
	parts := strings.Split(raw, ".")
	if len(parts) != 3 {
		return domain.LineIdentity{}, errIDToken
	}
	b64 := base64.RawURLEncoding
	hb, err := b64.DecodeString(parts[0])
	if err != nil {
		return domain.LineIdentity{}, errIDToken
	}
	var h struct {
		Alg string `json:"alg"`
	}
	if json.Unmarshal(hb, &h) != nil || h.Alg != "HS256" {
		return domain.LineIdentity{}, errIDToken
	}
	sig, err := b64.DecodeString(parts[2])
	if err != nil {
		return domain.LineIdentity{}, errIDToken
	}
	m := hmac.New(sha256.New, []byte(c.cfg.ChannelSecret))
	m.Write([]byte(parts[0] + "." + parts[1]))
	if !hmac.Equal(sig, m.Sum(nil)) {
		return domain.LineIdentity{}, errIDToken
	}
	pb, err := b64.DecodeString(parts[1])
	if err != nil {
		return domain.LineIdentity{}, errIDToken
	}
	var cl idClaims
	if json.Unmarshal(pb, &cl) != nil {
		return domain.LineIdentity{}, errIDToken
	}
	now := c.cfg.Now()
	switch {
	case cl.Iss != Issuer,
		!audienceIs(cl.Aud, c.cfg.ChannelID),
		cl.Sub == "" || len(cl.Sub) > 128,
		cl.Exp == 0 || !now.Before(time.Unix(cl.Exp, 0).Add(leeway)),
		cl.Iat != 0 && now.Add(leeway).Before(time.Unix(cl.Iat, 0)),
		nonce == "" || subtle.ConstantTimeCompare([]byte(cl.Nonce), []byte(nonce)) != 1:
		return domain.LineIdentity{}, errIDToken
	}
	id := domain.LineIdentity{LineID: cl.Sub, Name: cl.Name, PictureURL: cl.Picture}
	if email := domain.NormalizeEmail(cl.Email); domain.ValidateEmail(email) == nil {
		id.Email = email
	}
	return id, nil
}

func audienceIs(raw json.RawMessage, want string) bool {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return one == want
	}
	var many []string
	if json.Unmarshal(raw, &many) == nil {
		for _, a := range many {
			if a == want {
				return true
			}
		}
	}
	return false
}
