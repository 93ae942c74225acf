package ports

import (
	"net/http"
	"strings"

	"bidradar/gen/auth/v1/authv1connect"
	"bidradar/pkg/access"
	"bidradar/services/auth/internal/app"
	"bidradar/services/auth/internal/domain"
)

// Cookie names (both live 604800 s: docs/product.md#business-constants-and-limits).
const (
	AccessCookie  = "access_token"
	RefreshCookie = "refresh_token"
)

// HostPrefix marks a cookie the browser keeps only when Secure, Path=/ and
// without Domain: no subdomain or plain-http page can plant or overwrite it
// (production only: development runs on plain http).
const HostPrefix = "__Host-"

// SecurePrefix marks a cookie the browser keeps only when Secure. The refresh
// cookie cannot be __Host- (that needs Path=/): it is scoped to the paths
// that read it instead.
const SecurePrefix = "__Secure-"

// RefreshPaths are the only paths the refresh cookie is sent to: the Connect
// and REST paths of the RPCs whose access rule says refresh_cookie
// (RefreshToken, RefreshLineToken, Logout; REST paths as
// gateway/http_rules.yaml maps them). A page load, an asset or any other
// call never carries it. Cookie paths match by prefix, so each path gets
// its own cookie of the same name.
var RefreshPaths = refreshPolicy().Paths(func(r access.Rule) bool { return r.RefreshCookie })

func refreshPolicy() access.Policy {
	p, err := access.ForService(authv1connect.AuthServiceName)
	if err != nil {
		panic("auth: access rules: " + err.Error()) // a build defect (pkg/access tests)
	}
	return p
}

// readsRefreshCookie are the procedures that read the refresh cookie: those
// whose rule says refresh_cookie, the only ones the browser sends it to.
var readsRefreshCookie = func() map[string]bool {
	out := map[string]bool{}
	for _, p := range refreshPolicy().Procedures(func(r access.Rule) bool { return r.RefreshCookie }) {
		out[p] = true
	}
	return out
}()

func (s *Server) cookie(name, path, value string, maxAge int) string {
	if s.opts.SecureCookies {
		if path == "/" {
			name = HostPrefix + name
		} else {
			name = SecurePrefix + name
		}
	}
	c := &http.Cookie{
		Name: name, Value: value, Path: path, MaxAge: maxAge,
		HttpOnly: true, Secure: s.opts.SecureCookies, SameSite: http.SameSiteLaxMode,
	}
	if maxAge == 0 {
		c.MaxAge = -1 // "Max-Age=0": delete now
	}
	return c.String()
}

func (s *Server) setSessionCookies(h http.Header, sess app.Session) {
	h.Add("Set-Cookie", s.cookie(AccessCookie, "/", sess.AccessToken, domain.CookieMaxAge))
	for _, p := range RefreshPaths {
		h.Add("Set-Cookie", s.cookie(RefreshCookie, p, sess.RefreshToken, domain.CookieMaxAge))
	}
}

// clearCookies also deletes a refresh cookie of earlier versions (Path=/).
func (s *Server) clearCookies(h http.Header) {
	h.Add("Set-Cookie", s.cookie(AccessCookie, "/", "", 0))
	for _, p := range append([]string{"/"}, RefreshPaths...) {
		h.Add("Set-Cookie", s.cookie(RefreshCookie, p, "", 0))
	}
}

// refreshFrom returns the refresh token of the body, else of the
// refresh_token cookie (Cookie, or Grpcgateway-Cookie as grpc-gateway
// forwards it) when procedure's rule says refresh_cookie: the cookie is
// scoped to those paths, so an RPC reading it without the rule would never
// get it from a browser (its tests fail here rather than in production).
// With secureOnly (production) only the prefixed cookies count: a plain
// refresh_token may have been planted by a sibling subdomain or a
// plain-http page, which cannot set a __Secure- or __Host- one.
func refreshFrom(procedure, body string, h http.Header, secureOnly bool) string {
	if t := strings.TrimSpace(body); t != "" {
		return t
	}
	if !readsRefreshCookie[procedure] {
		return ""
	}
	names := []string{SecurePrefix + RefreshCookie, HostPrefix + RefreshCookie, RefreshCookie}
	if secureOnly {
		names = names[:2]
	}
	for _, name := range []string{"Cookie", "Grpcgateway-Cookie"} {
		if lines := h.Values(name); len(lines) > 0 {
			r := http.Request{Header: http.Header{"Cookie": lines}}
			for _, n := range names {
				if c, err := r.Cookie(n); err == nil && c.Value != "" {
					return c.Value
				}
			}
		}
	}
	return ""
}
