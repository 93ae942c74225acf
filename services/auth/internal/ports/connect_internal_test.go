package ports

import (
	"net/http"
	"strings"
	"testing"

	"bidradar/services/auth/internal/app"
)

func TestRefreshFrom(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		body string
		h    http.Header
		want string
	}{
		{"body wins", " tok ", http.Header{"Cookie": {"refresh_token=c"}}, "tok"},
		{"cookie", "", http.Header{"Cookie": {"a=1; refresh_token=c; b=2"}}, "c"},
		{"gateway cookie", "", http.Header{"Grpcgateway-Cookie": {"refresh_token=g"}}, "g"},
		{"access cookie only", "", http.Header{"Cookie": {"access_token=a"}}, ""},
		{"nothing", "", http.Header{}, ""},
		{"production cookie name", "", http.Header{"Cookie": {"__Host-refresh_token=hostr; refresh_token=plain"}}, "hostr"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := refreshFrom(tt.body, tt.h); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCookies(t *testing.T) {
	t.Parallel()
	for _, secure := range []bool{false, true} {
		s := &Server{opts: Options{SecureCookies: secure}}
		h := http.Header{}
		s.setSessionCookies(h, app.Session{AccessToken: "a.b.c", RefreshToken: "r"})
		got := h.Values("Set-Cookie")
		want := []string{"access_token=a.b.c; Path=/; Max-Age=604800; HttpOnly; SameSite=Lax",
			"refresh_token=r; Path=/; Max-Age=604800; HttpOnly; SameSite=Lax"}
		for i := range want {
			if secure { // production: __Host- names, which browsers keep only Secure, Path=/, no Domain
				want[i] = HostPrefix + strings.Replace(want[i], "HttpOnly", "HttpOnly; Secure", 1)
			}
			if got[i] != want[i] {
				t.Fatalf("secure=%v: %q, want %q", secure, got[i], want[i])
			}
		}
		h = http.Header{}
		s.clearCookies(h)
		for _, c := range h.Values("Set-Cookie") {
			if !strings.Contains(c, "=; Path=/; Max-Age=0; HttpOnly") {
				t.Fatalf("clear cookie %q", c)
			}
		}
	}
}
