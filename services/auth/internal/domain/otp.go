package domain

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/binary"
	"fmt"
	"strings"
	"time"
)

// One-time code rules (docs/architecture.md#one-time-codes).
const (
	OTPLength = 6
	// OTPTTL is how long a code is valid (300 s, docs/product.md#business-constants-and-limits).
	OTPTTL = 300 * time.Second
	// OTPMaxAttempts wrong tries kill a code; the next submission gets 429.
	OTPMaxAttempts = 5
	// OTPMaxDailyFailures bounds wrong codes per (purpose, e-mail) in 24 h.
	OTPMaxDailyFailures = 30
	// OTPResendInterval is the minimum time between two codes for the same
	// (purpose, e-mail).
	OTPResendInterval = 60 * time.Second
	// OTPMaxSendsPerHour bounds codes per (purpose, e-mail) per rolling hour.
	OTPMaxSendsPerHour = 5
	// LoginChallengeTTL bounds how long after a password check a two-step
	// code may be re-sent without typing the password again.
	LoginChallengeTTL = 15 * time.Minute
)

// Purpose binds a code to what it may be used for.
type Purpose string

// The purposes of one-time codes.
const (
	PurposeRegistration  Purpose = "registration"
	PurposeLogin         Purpose = "login"
	PurposePasswordReset Purpose = "password_reset"
	PurposeLineLink      Purpose = "line_link"
)

// Valid reports whether p is one of the known purposes.
func (p Purpose) Valid() bool {
	switch p {
	case PurposeRegistration, PurposeLogin, PurposePasswordReset, PurposeLineLink, PurposeAccountDelete, PurposeEmailChange:
		return true
	}
	return false
}

// ValidOTPFormat reports whether s is exactly six ASCII digits.
func ValidOTPFormat(s string) bool {
	if len(s) != OTPLength {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// CheckOTPInput trims a submitted code and checks its format (422 otherwise).
func CheckOTPInput(s string) (string, error) {
	s = strings.TrimSpace(s)
	if !ValidOTPFormat(s) {
		return "", ErrInvalidOTPFormat
	}
	return s, nil
}

// NewOTP returns a uniformly random six-digit code from crypto/rand.
func NewOTP() string {
	// Rejection sampling keeps the distribution uniform over 000000-999999.
	const limit = (1 << 32) / 1_000_000 * 1_000_000
	var b [4]byte
	for {
		if _, err := rand.Read(b[:]); err != nil {
			panic("crypto/rand failed: " + err.Error()) // never happens on supported platforms
		}
		v := binary.BigEndian.Uint32(b[:])
		if v < limit {
			return fmt.Sprintf("%06d", v%1_000_000)
		}
	}
}

// OTPHasher computes the stored form of a code: HMAC-SHA256 with the
// server key over purpose, e-mail, binding and code, so a code is only
// valid for what it was issued for and a database leak reveals no codes.
type OTPHasher struct{ key []byte }

// NewOTPHasher returns a hasher with key (at least 32 bytes).
func NewOTPHasher(key []byte) (OTPHasher, error) {
	if len(key) < 32 {
		return OTPHasher{}, fmt.Errorf("otp hmac key must be at least 32 bytes, got %d", len(key))
	}
	return OTPHasher{key: append([]byte(nil), key...)}, nil
}

// Ready reports whether the hasher has a key.
func (h OTPHasher) Ready() bool { return len(h.key) > 0 }

// Sum returns the HMAC of a code. binding ties a code to one more value
// (the LINE link request for PurposeLineLink); it is empty otherwise.
func (h OTPHasher) Sum(p Purpose, email, binding, code string) []byte {
	m := hmac.New(sha256.New, h.key)
	for _, part := range []string{"bidradar-otp-v1", string(p), email, binding, code} {
		var n [4]byte
		binary.BigEndian.PutUint32(n[:], uint32(len(part)))
		m.Write(n[:])
		m.Write([]byte(part))
	}
	return m.Sum(nil)
}

// Equal compares two HMACs in constant time.
func (OTPHasher) Equal(a, b []byte) bool {
	return len(a) == len(b) && subtle.ConstantTimeCompare(a, b) == 1
}

// OTPCode is the stored state of one issued code.
type OTPCode struct {
	ID        int64
	Purpose   Purpose
	Email     string
	HMAC      []byte // nil for "dead" rows recorded only for throttling
	CreatedAt time.Time
	ExpiresAt time.Time
	// Attempts counts submissions, including the current one: the store
	// increments it atomically before the code is compared.
	Attempts int
	UsedAt   time.Time
	// AuthAt is when the password was last checked for a login code chain.
	AuthAt time.Time
}

// OTPVerdict is the outcome of one submission.
type OTPVerdict int

// Possible verdicts, in the order they are checked.
const (
	OTPOK OTPVerdict = iota
	OTPTooManyAttempts
	OTPUsed
	OTPExpired
	OTPWrong
)

// Evaluate decides a submission against a code whose Attempts already
// includes this submission. Expired and exhausted codes are rejected
// before any comparison; a wrong code counts as a failure.
func (c OTPCode) Evaluate(now time.Time, submitted []byte, h OTPHasher) OTPVerdict {
	switch {
	case c.Attempts > OTPMaxAttempts:
		return OTPTooManyAttempts
	case !c.UsedAt.IsZero() || c.HMAC == nil:
		return OTPUsed
	case !now.Before(c.ExpiresAt):
		return OTPExpired
	case !h.Equal(c.HMAC, submitted):
		return OTPWrong
	}
	return OTPOK
}

// Err maps a verdict to the error a client sees (nil for OTPOK).
func (v OTPVerdict) Err() error {
	switch v {
	case OTPOK:
		return nil
	case OTPTooManyAttempts:
		return ErrTooManyAttempts
	case OTPExpired:
		return ErrCodeExpired
	default:
		return ErrInvalidCode
	}
}

// SendHistory is what the throttle needs to know about earlier codes for one
// (purpose, e-mail): when the latest was issued and how many were issued in
// the last hour (oldest first).
type SendHistory struct {
	LastHour []time.Time
}

// CheckSend applies the resend rules at now: at least OTPResendInterval
// after the latest code and at most OTPMaxSendsPerHour per rolling hour.
// The returned error says when to retry.
func (h SendHistory) CheckSend(now time.Time) error {
	var recent []time.Time
	for _, t := range h.LastHour {
		if now.Sub(t) < time.Hour {
			recent = append(recent, t)
		}
	}
	if len(recent) > 0 {
		latest := recent[0]
		for _, t := range recent {
			if t.After(latest) {
				latest = t
			}
		}
		if wait := OTPResendInterval - now.Sub(latest); wait > 0 {
			return ResendTooSoon(wait)
		}
	}
	if len(recent) >= OTPMaxSendsPerHour {
		oldest := recent[0]
		for _, t := range recent {
			if t.Before(oldest) {
				oldest = t
			}
		}
		return ResendLimitReached(time.Hour - now.Sub(oldest))
	}
	return nil
}
