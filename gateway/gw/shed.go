package gw

import (
	"net/http"
	"runtime"
)

// passwordRoutes are the calls that cost an argon2id hash in the auth service.
var passwordRoutes = map[string]bool{
	apiPrefix + "login":                    true,
	apiPrefix + "register":                 true,
	apiPrefix + "users/reset-password":     true,
	apiPrefix + "users/me/change-password": true,
	"/auth.v1.AuthService/Login":           true,
	"/auth.v1.AuthService/Register":        true,
	"/auth.v1.AuthService/ResetPassword":   true,
	"/auth.v1.AuthService/ChangePassword":  true,
}

// shedPasswordBursts bounds the password-hashing calls in flight through this
// gateway and answers the excess with 429 at once. The auth service sheds too
// (its hashing pool), but a request that reaches it has already cost a trip
// through every layer: shedding at the edge keeps a login burst from slowing
// everyone else's calls.
func shedPasswordBursts(limit int, next http.Handler) http.Handler {
	if limit <= 0 {
		limit = 8 * runtime.GOMAXPROCS(0)
	}
	slots := make(chan struct{}, limit)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !passwordRoutes[r.URL.Path] {
			next.ServeHTTP(w, r)
			return
		}
		select {
		case slots <- struct{}{}:
			defer func() { <-slots }()
			next.ServeHTTP(w, r)
		default:
			w.Header().Set("Retry-After", "1")
			writeJSON(w, http.StatusTooManyRequests, map[string]string{"detail": "Too many login attempts. Please try again shortly."})
		}
	})
}
