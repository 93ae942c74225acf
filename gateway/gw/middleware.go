package gw

import (
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// CSRFHeader is the custom header the app sends on every state-changing call.
// Browsers cannot add it to a cross-site request without a CORS preflight, which
// only allowed origins pass.
const CSRFHeader = "X-Requested-With"

// csrf protects writes from other sites (docs/architecture.md#cookies-and-csrf):
//   - a REST write with a body must be JSON: a form or text/plain post, which
//     another site can send without a CORS preflight, is refused (415), so a
//     cross-site page can neither log a victim into its account (login CSRF)
//     nor write with their cookies;
//   - a browser write whose Origin is not ours (scheme, host and port all
//     compared) or that the browser marks cross-site is refused (403);
//   - a cookie-authenticated browser write must carry the app's custom header.
//
// Non-browser clients (no Origin, no Sec-Fetch-*) cannot be driven by another
// site, and calls with a Bearer token carry no ambient authority.
func csrf(allowed []string, publicURL string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if safeMethod(r.Method) {
			next.ServeHTTP(w, r)
			return
		}
		if strings.HasPrefix(r.URL.Path, apiPrefix) && r.ContentLength != 0 && !isJSON(r.Header.Get("Content-Type")) {
			gatewayError(w, r, http.StatusUnsupportedMediaType, reasonUnsupportedMediaType, "Content-Type must be application/json")
			return
		}
		if strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") {
			next.ServeHTTP(w, r) // a page of another site cannot set it without our CORS consent
			return
		}
		origin := r.Header.Get("Origin")
		site := r.Header.Get("Sec-Fetch-Site")
		browser := origin != "" || site != "" || r.Header.Get("Sec-Fetch-Mode") != ""
		if !browser {
			next.ServeHTTP(w, r)
			return
		}
		ours := origin != "" && originAllowed(r, origin, publicURL, allowed)
		if (origin != "" && !ours) || (site == "cross-site" && !ours) {
			gatewayError(w, r, http.StatusForbidden, reasonCSRF, "CSRF check failed")
			return
		}
		if hasSessionCookie(r) && r.Header.Get(CSRFHeader) == "" {
			gatewayError(w, r, http.StatusForbidden, reasonCSRF, "CSRF check failed")
			return
		}
		next.ServeHTTP(w, r)
	})
}

func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

func hasSessionCookie(r *http.Request) bool {
	for _, c := range r.Cookies() {
		if c.Value != "" && (strings.HasSuffix(c.Name, "access_token") || strings.HasSuffix(c.Name, "refresh_token")) {
			return true
		}
	}
	return false
}

// originAllowed accepts the gateway's own origin (PUBLIC_URL when set, else
// the request's scheme and host) and the configured ones; scheme, host and
// port must all match.
func originAllowed(r *http.Request, origin, publicURL string, allowed []string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return false
	}
	own := publicURL
	if own == "" {
		scheme := "http"
		if r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https") {
			scheme = "https"
		}
		own = scheme + "://" + r.Host
	}
	if sameOrigin(u, own) {
		return true
	}
	for _, a := range allowed {
		if sameOrigin(u, a) {
			return true
		}
	}
	return false
}

func sameOrigin(u *url.URL, other string) bool {
	o, err := url.Parse(other)
	if err != nil {
		return false
	}
	port := func(x *url.URL) string {
		if p := x.Port(); p != "" {
			return p
		}
		if strings.EqualFold(x.Scheme, "https") {
			return "443"
		}
		return "80"
	}
	return strings.EqualFold(u.Scheme, o.Scheme) && strings.EqualFold(u.Hostname(), o.Hostname()) && port(u) == port(o)
}

// cors answers preflights and adds CORS headers for the configured origins only.
// The app itself is same-origin and needs none of this.
func cors(allowed []string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		ok := false
		for _, a := range allowed {
			if origin != "" && strings.EqualFold(a, origin) {
				ok = true
			}
		}
		if ok {
			h := w.Header()
			h.Set("Access-Control-Allow-Origin", origin)
			h.Set("Access-Control-Allow-Credentials", "true")
			h.Add("Vary", "Origin")
			if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
				h.Set("Access-Control-Allow-Methods", "GET, POST, PUT, PATCH, DELETE")
				h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Connect-Protocol-Version, Connect-Timeout-Ms, X-Grpc-Web, X-User-Agent, "+CSRFHeader)
				h.Set("Access-Control-Max-Age", "600")
				w.WriteHeader(http.StatusNoContent)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// contentSecurityPolicy allows the app's own scripts, styles, images and
// calls (the WebSocket included) and no framing. React sets style attributes
// through the CSSOM, which style-src does not restrict. Profile pictures
// (LINE's) come over https; outside production plain http is allowed too,
// for local stand-ins of LINE.
func contentSecurityPolicy(production bool) string {
	img := "'self' data: https:"
	if !production {
		img += " http:"
	}
	return "default-src 'self'; script-src 'self'; style-src 'self'; img-src " + img + "; " +
		"font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self' https:; frame-ancestors 'none'"
}

// securityHeaders sets the headers every answer carries; API answers (tokens,
// personal data) are never stored by a cache; HSTS in production (TLS is
// terminated in front of the gateway there).
func securityHeaders(production bool, next http.Handler) http.Handler {
	csp := contentSecurityPolicy(production)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Content-Security-Policy", csp)
		if production {
			h.Set("Strict-Transport-Security", "max-age=63072000; includeSubDomains")
		}
		if strings.HasPrefix(r.URL.Path, apiPrefix) || strings.Contains(r.URL.Path, ".v1.") {
			h.Set("Cache-Control", "no-store")
		}
		next.ServeHTTP(w, r)
	})
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(c int) {
	if s.status == 0 {
		s.status = c
	}
	s.ResponseWriter.WriteHeader(c)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach Flush and Hijack (streaming, WebSocket).
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

func (s *statusRecorder) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// accessLog writes one line per API request (never bodies, never query values
// of auth paths: they carry codes).
func accessLog(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		if r.URL.Path == "/healthz" || r.URL.Path == "/readyz" || strings.HasPrefix(r.URL.Path, "/assets/") {
			return
		}
		log.InfoContext(r.Context(), "http",
			"method", r.Method, "path", redactPath(r.URL.Path), "status", rec.status,
			"duration_ms", time.Since(start).Milliseconds())
	})
}
