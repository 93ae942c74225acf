package ports

import (
	"net/http"
	"strings"
	"testing"

	"bidradar/gen/auth/v1/authv1connect"
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
		{"scoped production cookie", "", http.Header{"Cookie": {"__Secure-refresh_token=scoped; refresh_token=plain"}}, "scoped"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := refreshFrom(authv1connect.AuthServiceRefreshTokenProcedure, tt.body, tt.h, false); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// Only the RPCs whose rule says refresh_cookie read the cookie (the only
// ones its paths let a browser send it to); a body token counts anywhere.
func TestRefreshCookieOnlyWhereTheRuleSays(t *testing.T) {
	t.Parallel()
	h := http.Header{"Cookie": {"refresh_token=c"}}
	for _, proc := range []string{authv1connect.AuthServiceRefreshTokenProcedure, authv1connect.AuthServiceRefreshLineTokenProcedure, authv1connect.AuthServiceLogoutProcedure} {
		if got := refreshFrom(proc, "", h, false); got != "c" {
			t.Errorf("%s: %q, want the cookie", proc, got)
		}
	}
	for _, proc := range []string{authv1connect.AuthServiceGetMeProcedure, authv1connect.AuthServiceLoginProcedure, "/auth.v1.AuthService/Nope"} {
		if got := refreshFrom(proc, "", h, false); got != "" {
			t.Errorf("%s read the refresh cookie (%q) without refresh_cookie in its rule", proc, got)
		}
		if got := refreshFrom(proc, "b", h, false); got != "b" {
			t.Errorf("%s: body token %q", proc, got)
		}
	}
	want := []string{
		"/app/backend/api/v1/line/auth/line/refresh-token", "/app/backend/api/v1/logout", "/app/backend/api/v1/refresh-token",
		authv1connect.AuthServiceLogoutProcedure, authv1connect.AuthServiceRefreshLineTokenProcedure, authv1connect.AuthServiceRefreshTokenProcedure,
	}
	if strings.Join(RefreshPaths, " ") != strings.Join(want, " ") {
		t.Errorf("RefreshPaths %q, want %q", RefreshPaths, want)
	}
}

// In production only the prefixed refresh cookies count: the browser keeps
// a __Secure- or __Host- cookie only from a secure origin, while a plain
// refresh_token can be planted by a sibling subdomain or a plain-http page.
func TestRefreshFromProduction(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		body string
		h    http.Header
		want string
	}{
		{"plain cookie ignored", "", http.Header{"Cookie": {"refresh_token=plain"}}, ""},
		{"plain gateway cookie ignored", "", http.Header{"Grpcgateway-Cookie": {"refresh_token=plain"}}, ""},
		{"scoped cookie", "", http.Header{"Cookie": {"refresh_token=plain; __Secure-refresh_token=scoped"}}, "scoped"},
		{"host cookie", "", http.Header{"Grpcgateway-Cookie": {"__Host-refresh_token=hostr"}}, "hostr"},
		{"body", "tok", http.Header{"Cookie": {"refresh_token=plain"}}, "tok"},
	} {
		if got := refreshFrom(authv1connect.AuthServiceLogoutProcedure, tt.body, tt.h, true); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

// The access cookie goes everywhere (Path=/, __Host- in production); the
// refresh cookie only to the paths that read it (one cookie per path,
// __Secure- in production); logout also deletes an old Path=/ refresh cookie.
func TestCookies(t *testing.T) {
	t.Parallel()
	for _, secure := range []bool{false, true} {
		s := &Server{opts: Options{SecureCookies: secure}}
		h := http.Header{}
		s.setSessionCookies(h, app.Session{AccessToken: "a.b.c", RefreshToken: "r"})
		got := h.Values("Set-Cookie")
		attrs := "; Max-Age=604800; HttpOnly; SameSite=Lax"
		if secure {
			attrs = "; Max-Age=604800; HttpOnly; Secure; SameSite=Lax"
		}
		access, refresh := "access_token", "refresh_token"
		if secure {
			access, refresh = HostPrefix+access, SecurePrefix+refresh
		}
		want := []string{access + "=a.b.c; Path=/" + attrs}
		for _, p := range RefreshPaths {
			want = append(want, refresh+"=r; Path="+p+attrs)
		}
		if len(got) != len(want) {
			t.Fatalf("secure=%v: %q", secure, got)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("secure=%v: %q, want %q", secure, got[i], want[i])
			}
		}
		for _, p := range RefreshPaths {
			if !strings.Contains(p, "refresh-token") && !strings.Contains(p, "Refresh") && !strings.Contains(p, "ogout") {
				t.Fatalf("refresh cookie path %q reads no refresh token", p)
			}
		}
		h = http.Header{}
		s.clearCookies(h)
		cleared := h.Values("Set-Cookie")
		if len(cleared) != 2+len(RefreshPaths) {
			t.Fatalf("clear: %q", cleared)
		}
		for _, c := range cleared {
			if !strings.Contains(c, "=; Path=/") || !strings.Contains(c, "; Max-Age=0; HttpOnly") {
				t.Fatalf("clear cookie %q", c)
			}
		}
	}
}
