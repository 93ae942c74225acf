package authn

import (
	"strings"
	"sync"
	"time"
)

// ErrSessionEnded: the token's session was ended (logout, password reset,
// refresh-token reuse) before the token expired.
var ErrSessionEnded = invalid("session ended")

// FamilyID returns the session (refresh-token family) an access token
// belongs to: its jti is "<family>.<n>". "" when it names none.
func FamilyID(c Claims) string {
	fam, _, ok := strings.Cut(c.ID, ".")
	if !ok {
		return ""
	}
	return fam
}

// EndedSessions is the set of sessions that ended while their access tokens
// may still be unexpired. Entries are kept for MaxTokenLifetime: after that
// every token of the session has expired anyway. Safe for concurrent use.
type EndedSessions struct {
	mu sync.RWMutex
	m  map[string]time.Time // family → forget after
}

// MaxTokenLifetime bounds an access token's lifetime (auth issues 15 min)
// plus clock leeway.
const MaxTokenLifetime = 16 * time.Minute

// NewEndedSessions returns an empty set.
func NewEndedSessions() *EndedSessions { return &EndedSessions{m: map[string]time.Time{}} }

// End records that families ended at t.
func (e *EndedSessions) End(t time.Time, families ...string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, f := range families {
		if f != "" {
			e.m[f] = t.Add(MaxTokenLifetime)
		}
	}
	if len(e.m) > 1024 { // forget what has expired, now and then
		now := time.Now()
		for f, until := range e.m {
			if now.After(until) {
				delete(e.m, f)
			}
		}
	}
}

// Ended reports whether family ended.
func (e *EndedSessions) Ended(family string) bool {
	if e == nil || family == "" {
		return false
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	_, ok := e.m[family]
	return ok
}

// WithEndedSessions makes the verifier refuse the tokens of ended sessions.
func WithEndedSessions(e *EndedSessions) VerifierOption {
	return func(v *Verifier) { v.ended = e }
}
