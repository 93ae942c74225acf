package authn_test

import (
	"net/http"
	"strings"
	"testing"

	"bidradar/pkg/authn"
)

// FuzzTokenFromRequest: any Authorization and cookie lines give a token or
// "", never a panic, and a token never holds a separator it was cut at.
func FuzzTokenFromRequest(f *testing.F) {
	for _, s := range [][2]string{
		{"Bearer abc.def.ghi", ""}, {"", "access_token=abc; theme=dark"}, {"bearer  x ", "access_token="},
		{"Basic Zm9v", "a=b; access_token=\"quoted\""}, {"", "access_token=%00; access_token=two"}, {"Bearer", ";;;=;"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, auth, cookie string) {
		h := http.Header{}
		if auth != "" {
			h.Set("Authorization", auth)
		}
		if cookie != "" {
			h.Set("Cookie", cookie)
			h.Set("Grpcgateway-Cookie", cookie)
		}
		tok := authn.TokenFromRequest(h)
		if tok != strings.TrimSpace(tok) && strings.HasPrefix(strings.ToLower(auth), "bearer ") {
			t.Fatalf("untrimmed bearer token %q", tok)
		}
		if strings.ContainsAny(tok, ";") && !strings.HasPrefix(strings.ToLower(auth), "bearer ") {
			t.Fatalf("cookie token %q crosses a separator", tok)
		}
	})
}
