package domain

import (
	"context"
	"fmt"
	"time"

	"bidradar/pkg/apperr"
)

// Login limits (docs/architecture.md#accounts-and-passwords, OWASP ASVS 2.2.1,
// NIST SP 800-63B §5.2.2). An account takes AccountFreeFailures wrong passwords
// per LoginWindow; after that each attempt waits a delay that doubles up to
// AccountMaxDelay, so a third party who knows a username can slow its owner
// down by at most a minute but never lock them out. One client takes
// ClientFreeFailures wrong passwords over all accounts per window, then waits
// up to ClientMaxDelay: one client cannot stuff credentials or starve the
// others.
const (
	LoginWindow         = 15 * time.Minute
	AccountFreeFailures = 10
	AccountMaxDelay     = time.Minute
	ClientFreeFailures  = 100
	ClientMaxDelay      = 15 * time.Minute
)

// LoginHistory is the recent failures of an account and of a client.
type LoginHistory struct {
	AccountFailures int
	AccountLast     time.Time
	ClientFailures  int
	ClientLast      time.Time
}

// LoginDelay is how long an attempt must wait given the history (0: go ahead).
func LoginDelay(h LoginHistory, now time.Time) time.Duration {
	wait := func(n, free int, last time.Time, max time.Duration) time.Duration {
		if n < free {
			return 0
		}
		d := max
		if shift := n - free; shift < 30 {
			if dd := time.Second << shift; dd < max {
				d = dd
			}
		}
		return last.Add(d).Sub(now)
	}
	d := wait(h.AccountFailures, AccountFreeFailures, h.AccountLast, AccountMaxDelay)
	if c := wait(h.ClientFailures, ClientFreeFailures, h.ClientLast, ClientMaxDelay); c > d {
		d = c
	}
	if d < 0 {
		return 0
	}
	return d
}

// ErrLoginThrottledBase is the 429 of a throttled login.
var ErrLoginThrottledBase = apperr.New(apperr.ResourceExhausted, "login-throttled", "Too many failed login attempts. Please try again later.")

// LoginThrottled returns the 429 for an attempt that must wait.
func LoginThrottled(wait time.Duration) error {
	secs := int((wait + time.Second - 1) / time.Second)
	if secs < 1 {
		secs = 1
	}
	e := *ErrLoginThrottledBase
	e.Message = fmt.Sprintf("Too many failed login attempts. Please try again in %d seconds.", secs)
	return &RetryError{Err: &e, RetryAfter: time.Duration(secs) * time.Second}
}

// LoginLimiter keeps the login attempts, in the database so that the limits
// hold across replicas.
type LoginLimiter interface {
	// BeginLogin records an attempt of account from client unless it must
	// wait; checking and recording are one step, so concurrent attempts
	// cannot all slip under the limit. It returns the attempt's id, or the
	// wait.
	BeginLogin(ctx context.Context, account, client string, now time.Time) (attempt int64, wait time.Duration, err error)
	// LoginSucceeded forgets the account's failures (its attempt included).
	LoginSucceeded(ctx context.Context, account string) error
}
