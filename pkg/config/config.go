// Package config reads service configuration from the environment only.
// It is the one way every service, the gateway and the stack read theirs.
//
// A Loader collects every problem instead of stopping at the first, so a
// misconfigured deployment fails once with the full list:
//
//	l := config.FromGetenv(getenv) // or FromEnv()
//	addr := l.String("AUTH_ADDR", "127.0.0.1:9001")
//	db := l.Required("DATABASE_URL")
//	ttl := l.Duration("OTP_TTL", 5*time.Minute)
//	key := l.Secret("OTP_HMAC_KEY")
//	if err := l.Err(); err != nil {
//		return err
//	}
//	log.Info("config", "values", l.Redacted())
//
// An empty variable counts as unset, because orchestrators often render
// missing values as "".
package config

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Redaction replaces secret values in Redacted.
const Redaction = "***"

// Loader reads variables through a lookup function and records the values
// read and the problems found. It is safe for concurrent use.
type Loader struct {
	lookup func(string) (string, bool)

	mu     sync.Mutex
	errs   []error
	values map[string]string
}

// FromEnv returns a Loader over the process environment.
func FromEnv() *Loader { return FromLookup(os.LookupEnv) }

// FromGetenv returns a Loader over a function with the signature of
// os.Getenv (the runner's getenv: the process environment or the
// launcher's overlay).
func FromGetenv(getenv func(string) string) *Loader {
	return FromLookup(func(k string) (string, bool) {
		v := getenv(k)
		return v, v != ""
	})
}

// FromMap returns a Loader over a fixed map, for tests.
func FromMap(m map[string]string) *Loader {
	return FromLookup(func(k string) (string, bool) {
		v, ok := m[k]
		return v, ok
	})
}

// FromLookup returns a Loader over any lookup function with the signature
// of os.LookupEnv.
func FromLookup(lookup func(string) (string, bool)) *Loader {
	return &Loader{lookup: lookup, values: map[string]string{}}
}

func (l *Loader) get(key string) (string, bool) {
	v, ok := l.lookup(key)
	if !ok || v == "" {
		return "", false
	}
	return v, true
}

func (l *Loader) record(key, shown string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.values[key] = shown
}

func (l *Loader) fail(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.errs = append(l.errs, fmt.Errorf(format, args...))
}

// String returns the variable or def when unset.
func (l *Loader) String(key, def string) string {
	v, ok := l.get(key)
	if !ok {
		v = def
	}
	l.record(key, redactURL(v))
	return v
}

// Required returns the variable and records a problem when it is unset.
func (l *Loader) Required(key string) string {
	v, ok := l.get(key)
	if !ok {
		l.fail("%s: required but not set", key)
	}
	l.record(key, redactURL(v))
	return v
}

// Secret is Required for values that must never be printed; Redacted shows
// them as "***" and problems never include them.
func (l *Loader) Secret(key string) string {
	v, ok := l.get(key)
	if !ok {
		l.fail("%s: required but not set", key)
	}
	l.record(key, Redaction)
	return v
}

// OptionalSecret is Secret for values that may be absent (it returns "").
func (l *Loader) OptionalSecret(key string) string {
	v, ok := l.get(key)
	if ok {
		l.record(key, Redaction)
	} else {
		l.record(key, "")
	}
	return v
}

// OneOf returns the variable, or def when unset, and records a problem when
// the value is not one of allowed (compared case-sensitively).
func (l *Loader) OneOf(key, def string, allowed ...string) string {
	v := l.String(key, def)
	if !slices.Contains(allowed, v) {
		l.fail("%s: %q is not one of %s", key, v, strings.Join(allowed, ", "))
	}
	return v
}

// Int returns the variable as a base-10 int, or def when unset.
func (l *Loader) Int(key string, def int) int {
	v, ok := l.get(key)
	if !ok {
		l.record(key, strconv.Itoa(def))
		return def
	}
	l.record(key, v)
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		l.fail("%s: %q is not an integer", key, v)
		return def
	}
	return n
}

// Bool returns the variable parsed by strconv.ParseBool, or def when unset.
func (l *Loader) Bool(key string, def bool) bool {
	v, ok := l.get(key)
	if !ok {
		l.record(key, strconv.FormatBool(def))
		return def
	}
	l.record(key, v)
	b, err := strconv.ParseBool(strings.TrimSpace(v))
	if err != nil {
		l.fail("%s: %q is not a boolean", key, v)
		return def
	}
	return b
}

// Duration returns the variable parsed by time.ParseDuration ("90s", "5m"),
// or def when unset. Negative durations are rejected: no setting needs one.
func (l *Loader) Duration(key string, def time.Duration) time.Duration {
	v, ok := l.get(key)
	if !ok {
		l.record(key, def.String())
		return def
	}
	l.record(key, v)
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil || d < 0 {
		l.fail("%s: %q is not a non-negative duration such as 30s or 5m", key, v)
		return def
	}
	return d
}

// IntIn is Int for values that must lie in [min, max].
func (l *Loader) IntIn(key string, def, min, max int) int {
	n := l.Int(key, def)
	if !l.parsed(key, func(v string) error { _, err := strconv.Atoi(v); return err }) {
		return n // not set, or already reported as not an integer
	}
	if n < min || n > max {
		if max == math.MaxInt {
			l.fail("%s: %d is less than %d", key, n, min)
		} else {
			l.fail("%s: %d is not between %d and %d", key, n, min, max)
		}
	}
	return n
}

// PositiveDuration is Duration for values that must be above zero.
func (l *Loader) PositiveDuration(key string, def time.Duration) time.Duration {
	d := l.Duration(key, def)
	if l.parsed(key, func(v string) error { _, err := time.ParseDuration(v); return err }) && d == 0 {
		l.fail("%s: must be above zero", key)
	}
	return d
}

// parsed reports whether key is set and parse accepts its trimmed value.
func (l *Loader) parsed(key string, parse func(string) error) bool {
	v, ok := l.get(key)
	return ok && parse(strings.TrimSpace(v)) == nil
}

// List returns a comma-separated variable as its trimmed, non-empty items,
// or def when unset.
func (l *Loader) List(key string, def []string) []string {
	v, ok := l.get(key)
	if !ok {
		l.record(key, strings.Join(def, ","))
		return def
	}
	l.record(key, v)
	var out []string
	for _, item := range strings.Split(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// Invalid records a problem with key that the typed readers cannot see
// (a rule across variables, a value out of range): "KEY: why".
func (l *Loader) Invalid(key, why string) {
	l.fail("%s: %s", key, why)
}

// Err returns every problem found so far, joined, or nil.
func (l *Loader) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return errors.Join(l.errs...)
}

// Redacted returns the values read so far (defaults included) with secrets
// shown as "***" and passwords removed from URLs, for the start-up log line.
func (l *Loader) Redacted() map[string]string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[string]string, len(l.values))
	for k, v := range l.values {
		out[k] = v
	}
	return out
}

// redactURL hides the password in values such as DATABASE_URL or NATS_URL,
// which are configuration but often carry credentials.
func redactURL(v string) string {
	if !strings.Contains(v, "://") {
		return v
	}
	u, err := url.Parse(v)
	if err != nil {
		// An unparsable URL may still hold a password: show nothing of it.
		return Redaction
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), Redaction)
			return strings.Replace(u.String(), url.QueryEscape(Redaction), Redaction, 1)
		}
		// NATS token auth puts the token where a user name would be.
		if strings.HasPrefix(u.Scheme, "nats") || u.Scheme == "tls" {
			u.User = url.User(Redaction)
			return strings.Replace(u.String(), url.QueryEscape(Redaction), Redaction, 1)
		}
	}
	q := u.Query()
	changed := false
	for k := range q {
		if lk := strings.ToLower(k); lk == "password" || lk == "token" || lk == "secret" {
			q.Set(k, Redaction)
			changed = true
		}
	}
	if changed {
		u.RawQuery = q.Encode()
		return strings.ReplaceAll(u.String(), url.QueryEscape(Redaction), Redaction)
	}
	return v
}
