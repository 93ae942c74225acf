package line_test

import (
	"strings"
	"testing"
	"time"

	"bidradar/services/auth/internal/adapters/line"
	"bidradar/services/auth/internal/domain"
	"bidradar/services/auth/linetest"
)

// FuzzCallbackParams: what LINE's redirect hands the app — the ID token it
// returns and the redirect_to a sign-in started with — never panics; an ID
// token is accepted only when it is the genuine one (or the same claims
// re-signed with the channel secret); redirect_to only ever becomes a path
// of ours.
func FuzzCallbackParams(f *testing.F) {
	now := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	c := line.New(line.Config{ChannelID: channelID, ChannelSecret: secret, RedirectURI: redirect, Now: func() time.Time { return now }})
	genuine, err := linetest.SignHS256(secret, linetest.Claims{"iss": "https://access.line.me", "sub": "U1", "aud": channelID,
		"exp": now.Add(time.Hour).Unix(), "iat": now.Unix(), "nonce": "n"})
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range [][2]string{
		{genuine, "/search"}, {genuine + "x", "//evil.example"}, {"a.b.c", "/\\evil"}, {"", "https://evil.example/"},
		{strings.Replace(genuine, ".", "..", 1), "/user-settings/line-api?x=1#y"}, {"eyJhbGciOiJub25lIn0.e30.", "/%0d%0aSet-Cookie:x"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, token, redirectTo string) {
		id, err := c.VerifyIDToken(token, "n")
		if err == nil && token != genuine {
			// Another string may still verify when it is the same token in
			// another base64 form: it must carry the genuine identity.
			if id.LineID != "U1" {
				t.Fatalf("forged token accepted: %q -> %+v", token, id)
			}
		}
		if p, err := domain.SafeRedirect(redirectTo); err == nil {
			if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.ContainsAny(p, "\\\r\n") {
				t.Fatalf("SafeRedirect(%q) = %q", redirectTo, p)
			}
		}
	})
}
