package authn

// Service tokens: how a BidRadar service proves to another that the call is
// one of ours. Every RPC whose access rule is AUDIENCE_INTERNAL requires one,
// whoever calls it and from wherever: being inside the network proves nothing.
//
// A service token is a compact JWS signed with HMAC-SHA256 under the key
// every service shares (SERVICE_TOKEN_KEY): header {"alg":"HS256","typ":
// "svc+jwt"}; claims iss "bidradar-service", sub the calling service, aud
// the called service's full proto name (auth.v1.AuthService), iat and exp one
// minute later, which bounds a replay. A user's access token (EdDSA, issuer
// bidradar-auth) never verifies as a service token, nor a service token as
// an access token: each verifier accepts its one algorithm, issuer and type.

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"bidradar/pkg/apperr"
)

// Service token constants.
const (
	// ServiceTokenHeader carries the token, apart from Authorization, which
	// may carry the user's access token on the same call.
	ServiceTokenHeader = "X-Service-Token"
	// ServiceIssuer is the iss of every service token.
	ServiceIssuer = "bidradar-service"
	// ServiceTokenTTL is a token's lifetime; callers renew theirs at half of it.
	ServiceTokenTTL = time.Minute
	// MinServiceKeyBytes is the shortest SERVICE_TOKEN_KEY accepted.
	MinServiceKeyBytes = 32
	serviceTokenType   = "svc+jwt"
)

// Errors of internal calls without a valid service token.
var (
	ErrServiceTokenRequired = apperr.New(apperr.Unauthenticated, "service-token-required", "This call is for BidRadar services only")
	ErrInvalidServiceToken  = apperr.New(apperr.Unauthenticated, "invalid-service-token", "This call is for BidRadar services only")
)

// ServiceKey signs and verifies service tokens. It is safe for concurrent use.
type ServiceKey struct{ key []byte }

// NewServiceKey returns the key for raw, which must hold at least
// MinServiceKeyBytes bytes.
func NewServiceKey(raw []byte) (*ServiceKey, error) {
	if len(raw) < MinServiceKeyBytes {
		return nil, fmt.Errorf("authn: a service key needs at least %d bytes, got %d", MinServiceKeyBytes, len(raw))
	}
	return &ServiceKey{key: append([]byte(nil), raw...)}, nil
}

// ParseServiceKey decodes SERVICE_TOKEN_KEY (base64, padded or not, standard
// or URL alphabet) into a ServiceKey.
func ParseServiceKey(s string) (*ServiceKey, error) {
	s = strings.TrimSpace(s)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return NewServiceKey(b)
		}
	}
	return nil, errors.New("authn: a service key is base64")
}

type serviceHeader struct {
	Alg string `json:"alg"`
	Typ string `json:"typ"`
}

type servicePayload struct {
	Iss string `json:"iss"`
	Sub string `json:"sub"`
	Aud string `json:"aud"`
	Iat int64  `json:"iat"`
	Exp int64  `json:"exp"`
}

var serviceHeaderB64 = func() string {
	h, _ := json.Marshal(serviceHeader{Alg: "HS256", Typ: serviceTokenType})
	return b64.EncodeToString(h)
}()

func (k *ServiceKey) mac(signing string) []byte {
	m := hmac.New(sha256.New, k.key)
	m.Write([]byte(signing))
	return m.Sum(nil)
}

// Sign returns a token by which caller calls audience (a service's full
// name), valid from now for ServiceTokenTTL.
func (k *ServiceKey) Sign(caller, audience string, now time.Time) (string, error) {
	if caller == "" || audience == "" {
		return "", errors.New("authn: a service token names its caller and audience")
	}
	p, err := json.Marshal(servicePayload{
		Iss: ServiceIssuer, Sub: caller, Aud: audience, Iat: now.Unix(), Exp: now.Add(ServiceTokenTTL).Unix(),
	})
	if err != nil {
		return "", err
	}
	signing := serviceHeaderB64 + "." + b64.EncodeToString(p)
	return signing + "." + b64.EncodeToString(k.mac(signing)), nil
}

// ServiceClaims are the verified facts of a service token.
type ServiceClaims struct {
	Caller    string // sub
	Audience  string // aud
	ExpiresAt time.Time
}

// Verify checks token strictly (size, three parts, the exact header, the
// MAC, issuer, audience, iat and exp against now with DefaultLeeway) and
// returns its claims. Every failure wraps ErrInvalidToken.
func (k *ServiceKey) Verify(token, audience string, now time.Time) (ServiceClaims, error) {
	if len(token) > MaxTokenSize {
		return ServiceClaims{}, invalid("longer than %d bytes", MaxTokenSize)
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return ServiceClaims{}, invalid("want 3 parts, got %d", len(parts))
	}
	// The header is fixed: any other (alg EdDSA of an access token, none,
	// another typ) is refused before the MAC is even computed.
	if parts[0] != serviceHeaderB64 {
		return ServiceClaims{}, invalid("not a service token")
	}
	sig, err := b64.DecodeString(parts[2])
	if err != nil || !hmac.Equal(sig, k.mac(parts[0]+"."+parts[1])) {
		return ServiceClaims{}, invalid("bad signature")
	}
	pb, err := b64.DecodeString(parts[1])
	if err != nil {
		return ServiceClaims{}, invalid("payload encoding")
	}
	var p servicePayload
	if err := json.Unmarshal(pb, &p); err != nil {
		return ServiceClaims{}, invalid("payload json")
	}
	switch {
	case p.Iss != ServiceIssuer:
		return ServiceClaims{}, invalid("issuer %q", p.Iss)
	case p.Aud != audience:
		return ServiceClaims{}, invalid("audience %q, want %q", p.Aud, audience)
	case p.Sub == "":
		return ServiceClaims{}, invalid("no caller")
	case p.Exp == 0 || !now.Before(time.Unix(p.Exp, 0).Add(DefaultLeeway)):
		return ServiceClaims{}, fmt.Errorf("%w: %w", ErrInvalidToken, ErrTokenExpired)
	case now.Add(DefaultLeeway).Before(time.Unix(p.Iat, 0)):
		return ServiceClaims{}, invalid("issued in the future")
	case time.Unix(p.Exp, 0).Sub(time.Unix(p.Iat, 0)) > ServiceTokenTTL:
		return ServiceClaims{}, invalid("lives longer than %s", ServiceTokenTTL)
	}
	return ServiceClaims{Caller: p.Sub, Audience: p.Aud, ExpiresAt: time.Unix(p.Exp, 0).UTC()}, nil
}

// ServiceTokens hands out the tokens of one calling service, one per
// audience, signed once and reused until half their life has passed.
type ServiceTokens struct {
	key    *ServiceKey
	caller string
	now    func() time.Time

	mu    sync.Mutex
	cache map[string]cachedToken
}

type cachedToken struct {
	token   string
	renewAt time.Time
}

// NewServiceTokens returns the token source of caller (its service name).
func NewServiceTokens(key *ServiceKey, caller string) *ServiceTokens {
	return &ServiceTokens{key: key, caller: caller, now: time.Now, cache: map[string]cachedToken{}}
}

// Caller is the name the tokens carry as sub.
func (t *ServiceTokens) Caller() string { return t.caller }

// Token returns a valid token for audience.
func (t *ServiceTokens) Token(audience string) (string, error) {
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	if c, ok := t.cache[audience]; ok && now.Before(c.renewAt) {
		return c.token, nil
	}
	tok, err := t.key.Sign(t.caller, audience, now)
	if err != nil {
		return "", err
	}
	t.cache[audience] = cachedToken{token: tok, renewAt: now.Add(ServiceTokenTTL / 2)}
	return tok, nil
}

type serviceKey struct{}

// WithService returns ctx carrying the verified calling service.
func WithService(ctx context.Context, c ServiceClaims) context.Context {
	return context.WithValue(ctx, serviceKey{}, c)
}

// ServiceFromContext returns the verified calling service of an internal
// call, if any.
func ServiceFromContext(ctx context.Context) (ServiceClaims, bool) {
	c, ok := ctx.Value(serviceKey{}).(ServiceClaims)
	return c, ok
}
