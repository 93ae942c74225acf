package gw

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"connectrpc.com/connect"

	teamsv1 "bidradar/gen/teams/v1"
	"bidradar/gen/teams/v1/teamsv1connect"
	"bidradar/pkg/access"
	"bidradar/pkg/apperr"
	"bidradar/pkg/authn"
)

// Team API keys (docs/architecture.md#teams): a call with X-API-Key is
// admitted only to a procedure whose access rule names a team_key scope.
// The gateway verifies the key with the teams service (which also counts it
// against the key's rate limit, so every replica shares one count), drops
// every credential of a user from the request, and forwards it with a
// short-lived team key token for the called service. The key never goes
// further, and is never logged: the log names the key's id.

// keyRoute is one REST binding, split into segments ("" for a variable).
type keyRoute struct {
	method    string
	segments  []string
	literals  int
	procedure string
}

// keyPolicy is the access rules and the REST routes of every procedure.
type keyPolicy struct {
	rules  access.Policy
	routes []keyRoute
}

func newKeyPolicy() keyPolicy {
	p, err := access.All()
	if err != nil {
		panic("gateway: access rules: " + err.Error())
	}
	kp := keyPolicy{rules: p}
	for _, proc := range p.Procedures(func(access.Rule) bool { return true }) {
		for _, b := range access.REST(proc) {
			r := keyRoute{method: b.Method, procedure: proc}
			for _, s := range strings.Split(strings.Trim(b.Path, "/"), "/") {
				if strings.HasPrefix(s, "{") {
					s = ""
				} else {
					r.literals++
				}
				r.segments = append(r.segments, s)
			}
			kp.routes = append(kp.routes, r)
		}
	}
	return kp
}

// procedure finds the procedure a request calls: its Connect path, else the
// REST route with the most literal segments that matches.
func (kp keyPolicy) procedure(r *http.Request) (string, bool) {
	if _, ok := kp.rules[r.URL.Path]; ok {
		return r.URL.Path, true
	}
	segs := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	best, bestLit := "", -1
	for _, rt := range kp.routes {
		if rt.method != r.Method || len(rt.segments) != len(segs) || rt.literals <= bestLit {
			continue
		}
		ok := true
		for i, s := range rt.segments {
			if (s == "" && segs[i] == "") || (s != "" && s != segs[i]) {
				ok = false
				break
			}
		}
		if ok {
			best, bestLit = rt.procedure, rt.literals
		}
	}
	return best, best != ""
}

// apiKeys authenticates the calls made with a team API key; any other call
// passes on unchanged but for a team key token it may carry, which only
// the gateway makes.
func apiKeys(httpClient *http.Client, teamsTarget string, key *authn.ServiceKey, timeout time.Duration, log *slog.Logger, next http.Handler) http.Handler {
	kp := newKeyPolicy()
	client := teamsv1connect.NewTeamsServiceClient(httpClient, "http://"+teamsTarget)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Del(authn.TeamKeyHeader)
		r.Header.Del("Grpc-Metadata-" + authn.TeamKeyHeader)
		secret := strings.TrimSpace(r.Header.Get(authn.APIKeyHeader))
		if secret == "" {
			next.ServeHTTP(w, r)
			return
		}
		r.Header.Del(authn.APIKeyHeader)
		proc, ok := kp.procedure(r)
		if !ok {
			gatewayError(w, r, http.StatusNotFound, reasonNotFound, "Not Found")
			return
		}
		rule := kp.rules[proc]
		if rule.TeamKey == access.KeyRefused || rule.Audience == access.Internal || rule.Audience == access.Admin {
			writeError(w, r, http.StatusUnauthorized, apperr.Unauthenticated, authn.ErrKeyNotAccepted.Slug, authn.ErrKeyNotAccepted.Message)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), timeout)
		defer cancel()
		res, err := client.VerifyApiKey(ctx, connect.NewRequest(&teamsv1.VerifyApiKeyRequest{Secret: secret}))
		if err != nil {
			var ce *connect.Error
			switch {
			case errors.As(err, &ce) && ce.Code() == connect.CodeUnauthenticated:
				writeError(w, r, http.StatusUnauthorized, apperr.Unauthenticated, ce.Meta().Get(apperr.MetaReason), ce.Message())
			case errors.As(err, &ce) && ce.Code() == connect.CodeResourceExhausted:
				if ra := ce.Meta().Get("Retry-After"); ra != "" {
					w.Header().Set("Retry-After", ra)
				}
				writeError(w, r, http.StatusTooManyRequests, apperr.ResourceExhausted, ce.Meta().Get(apperr.MetaReason), ce.Message())
			default:
				gatewayError(w, r, http.StatusServiceUnavailable, reasonUnavailable, UnavailableMessage)
			}
			return
		}
		k := authn.TeamKey{KeyID: res.Msg.GetKeyId(), TeamID: res.Msg.GetTeamId(), Scopes: res.Msg.GetScopes()}
		if !k.Allows(rule.TeamKey) {
			writeError(w, r, http.StatusForbidden, apperr.PermissionDenied, authn.ErrKeyScope.Slug, authn.ErrKeyScope.Message)
			return
		}
		svc, _ := access.ServiceName(proc)
		tok, err := key.SignTeamKey(k, svc, time.Now())
		if err != nil {
			gatewayError(w, r, http.StatusServiceUnavailable, reasonUnavailable, UnavailableMessage)
			return
		}
		log.InfoContext(r.Context(), "team api key call", "key_id", k.KeyID, "team_id", k.TeamID, "procedure", proc)
		// Nothing of any user travels with a key's call.
		r.Header.Del("Authorization")
		r.Header.Del("Cookie")
		r.Header.Set(authn.TeamKeyHeader, tok)
		next.ServeHTTP(w, r)
	})
}
