package domain_test

import (
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"bidradar/pkg/apperr"
	"bidradar/services/auth/internal/domain"
)

func TestValidatePassword(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		pw       string
		username string
		email    string
		want     error
	}{
		{"ok ascii", "correct horse battery", "", "", nil},
		{"ok thai 8 runes", "รหัสผ่านลับ", "", "", nil},
		{"ok emoji", "🔒🔑🗝️🚪🏠🌏🌞🌝", "", "", nil},
		{"exactly 8", "xk3!m9qz", "", "", nil},
		{"7 chars", "xk3!m9q", "", "", domain.ErrPasswordTooShort},
		{"thai 7 runes", "ประเทศไ", "", "", domain.ErrPasswordTooShort},
		{"empty", "", "", "", domain.ErrPasswordTooShort},
		{"128 runes", strings.Repeat("ก", 128), "", "", nil},
		{"129 runes", strings.Repeat("ก", 129), "", "", domain.ErrPasswordTooLong},
		{"common", "password123", "", "", domain.ErrPasswordCommon},
		{"common case-insensitive", "PassWord123", "", "", domain.ErrPasswordCommon},
		{"common with spaces", " qwertyuiop ", "", "", domain.ErrPasswordCommon},
		{"common thai favourite", "sawasdee1", "", "", domain.ErrPasswordCommon},
		{"equals username", "somchai.k", "Somchai.K", "", domain.ErrPasswordLikeName},
		{"equals email", "somchai@example.co.th", "", "somchai@example.co.th", domain.ErrPasswordLikeName},
		{"control char", "abc\x00defghij", "", "", domain.ErrPasswordInvalid},
		{"newline", "abcdefgh\nij", "", "", domain.ErrPasswordInvalid},
		{"invalid utf8", "abcdefgh\xff", "", "", domain.ErrPasswordInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := domain.ValidatePassword(tt.pw, tt.username, tt.email)
			if !errors.Is(err, tt.want) { // errors.Is(nil, nil) holds
				t.Fatalf("ValidatePassword(%q) = %v, want %v", tt.pw, err, tt.want)
			}
			if err != nil && apperr.KindOf(err) != apperr.Validation {
				t.Fatalf("kind %v, want Validation (422)", apperr.KindOf(err))
			}
		})
	}
}

func TestValidateRegistration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                     string
		username, email, pw, nam string
		want                     error
	}{
		{"ok", "somchai_k", "Somchai@Example.com ", "long enough pass", "สมชาย ใจดี", nil},
		{"ok no name", "a.b-c", "a@b.co", "long enough pass", "", nil},
		{"username short", "ab", "a@b.co", "long enough pass", "", domain.ErrUsernameInvalid},
		{"username 32", strings.Repeat("a", 32), "a@b.co", "long enough pass", "", nil},
		{"username 33", strings.Repeat("a", 33), "a@b.co", "long enough pass", "", domain.ErrUsernameInvalid},
		{"username space", "som chai", "a@b.co", "long enough pass", "", domain.ErrUsernameInvalid},
		{"username thai", "สมชาย", "a@b.co", "long enough pass", "", domain.ErrUsernameInvalid},
		{"username at", "a@b", "a@b.co", "long enough pass", "", domain.ErrUsernameInvalid},
		{"email empty", "somchai", " ", "long enough pass", "", domain.ErrEmailRequired},
		{"email no at", "somchai", "somchai.example.com", "long enough pass", "", domain.ErrEmailInvalid},
		{"email display name", "somchai", "Som <s@example.com>", "long enough pass", "", domain.ErrEmailInvalid},
		{"email two addresses", "somchai", "a@b.co,c@d.co", "long enough pass", "", domain.ErrEmailInvalid},
		{"email trailing dot", "somchai", "a@b.co.", "long enough pass", "", domain.ErrEmailInvalid},
		{"email too long", "somchai", strings.Repeat("a", 250) + "@b.co", "long enough pass", "", domain.ErrEmailInvalid},
		{"password short", "somchai", "a@b.co", "short", "", domain.ErrPasswordTooShort},
		{"name too long", "somchai", "a@b.co", "long enough pass", strings.Repeat("ก", 101), domain.ErrNameInvalid},
		{"name control", "somchai", "a@b.co", "long enough pass", "a\u0007b", domain.ErrNameInvalid},
		{"name bidi override", "somchai", "a@b.co", "long enough pass", "สมชาย \u202eจำกัด", domain.ErrNameInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			nu, err := domain.ValidateRegistration(tt.username, tt.email, tt.pw, tt.nam)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("unexpected %v", err)
				}
				if nu.Email != strings.ToLower(strings.TrimSpace(tt.email)) {
					t.Fatalf("email not normalised: %q", nu.Email)
				}
				return
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
		})
	}
}

func TestOTPFormat(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in string
		ok bool
	}{
		{"123456", true}, {"000000", true}, {" 123456 ", true},
		{"12345", false}, {"1234567", false}, {"12345a", false}, {"", false},
		{"١٢٣٤٥٦", false}, {"๑๒๓๔๕๖", false}, {"12 456", false}, {"-12345", false},
	} {
		_, err := domain.CheckOTPInput(tt.in)
		if (err == nil) != tt.ok {
			t.Errorf("CheckOTPInput(%q) = %v, want ok=%v", tt.in, err, tt.ok)
		}
		if err != nil && err.(*apperr.Error).Message != "Please enter a valid 6-digit verification code" {
			t.Errorf("message %q", err)
		}
	}
}

func TestNewOTP(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for range 2000 {
		c := domain.NewOTP()
		if !domain.ValidOTPFormat(c) {
			t.Fatalf("bad code %q", c)
		}
		seen[c] = true
	}
	if len(seen) < 1900 {
		t.Fatalf("only %d distinct codes out of 2000", len(seen))
	}
}

func TestOTPEvaluate(t *testing.T) {
	t.Parallel()
	h, err := domain.NewOTPHasher([]byte(strings.Repeat("k", 32)))
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	sum := h.Sum(domain.PurposeRegistration, "a@b.co", "", "123456")
	base := domain.OTPCode{HMAC: sum, CreatedAt: t0, ExpiresAt: t0.Add(domain.OTPTTL), Attempts: 1}
	right := sum
	wrong := h.Sum(domain.PurposeRegistration, "a@b.co", "", "654321")
	otherPurpose := h.Sum(domain.PurposeLogin, "a@b.co", "", "123456")
	otherEmail := h.Sum(domain.PurposeRegistration, "c@b.co", "", "123456")
	otherBinding := h.Sum(domain.PurposeRegistration, "a@b.co", "x", "123456")
	with := func(f func(*domain.OTPCode)) domain.OTPCode { c := base; f(&c); return c }

	tests := []struct {
		name string
		code domain.OTPCode
		now  time.Time
		sub  []byte
		want domain.OTPVerdict
		err  error
	}{
		{"right code", base, t0.Add(time.Minute), right, domain.OTPOK, nil},
		{"right at 299s", base, t0.Add(299 * time.Second), right, domain.OTPOK, nil},
		{"expired at 300s", base, t0.Add(300 * time.Second), right, domain.OTPExpired, domain.ErrCodeExpired},
		{"wrong code", base, t0.Add(time.Minute), wrong, domain.OTPWrong, domain.ErrInvalidCode},
		{"other purpose", base, t0, otherPurpose, domain.OTPWrong, domain.ErrInvalidCode},
		{"other email", base, t0, otherEmail, domain.OTPWrong, domain.ErrInvalidCode},
		{"other binding", base, t0, otherBinding, domain.OTPWrong, domain.ErrInvalidCode},
		{"5th attempt still evaluated", with(func(c *domain.OTPCode) { c.Attempts = 5 }), t0, right, domain.OTPOK, nil},
		{"6th attempt dead even if right", with(func(c *domain.OTPCode) { c.Attempts = 6 }), t0, right, domain.OTPTooManyAttempts, domain.ErrTooManyAttempts},
		{"exhausted beats expired", with(func(c *domain.OTPCode) { c.Attempts = 9 }), t0.Add(time.Hour), wrong, domain.OTPTooManyAttempts, domain.ErrTooManyAttempts},
		{"used", with(func(c *domain.OTPCode) { c.UsedAt = t0 }), t0, right, domain.OTPUsed, domain.ErrInvalidCode},
		{"dead row", with(func(c *domain.OTPCode) { c.HMAC = nil }), t0, right, domain.OTPUsed, domain.ErrInvalidCode},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := tt.code.Evaluate(tt.now, tt.sub, h)
			if got != tt.want {
				t.Fatalf("verdict %v, want %v", got, tt.want)
			}
			if err := got.Err(); !errors.Is(err, tt.err) { // errors.Is(nil, nil) holds
				t.Fatalf("err %v, want %v", err, tt.err)
			}
		})
	}
	if apperr.HTTPStatus(apperr.KindOf(domain.ErrTooManyAttempts)) != 429 || apperr.HTTPStatus(apperr.KindOf(domain.ErrCodeExpired)) != 400 {
		t.Fatal("status mapping")
	}
}

func TestSendThrottle(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	at := func(offsets ...time.Duration) []time.Time {
		var out []time.Time
		for _, o := range offsets {
			out = append(out, t0.Add(o))
		}
		return out
	}
	tests := []struct {
		name     string
		history  []time.Time
		now      time.Time
		wantSlug string
		wantMsg  string
	}{
		{"first send", nil, t0, "", ""},
		{"59s after", at(0), t0.Add(59 * time.Second), "otp-resend-too-soon", "Please wait 1 seconds before requesting a new code."},
		{"10s after", at(0), t0.Add(10 * time.Second), "otp-resend-too-soon", "Please wait 50 seconds before requesting a new code."},
		{"60s after", at(0), t0.Add(60 * time.Second), "", ""},
		{"5th in hour ok", at(0, 2*time.Minute, 4*time.Minute, 6*time.Minute), t0.Add(8 * time.Minute), "", ""},
		{"6th in hour refused", at(0, 2*time.Minute, 4*time.Minute, 6*time.Minute, 8*time.Minute), t0.Add(10 * time.Minute), "otp-resend-limit", "Too many codes requested. Please try again in 50 minutes."},
		{"window slides", at(0, 2*time.Minute, 4*time.Minute, 6*time.Minute, 8*time.Minute), t0.Add(61 * time.Minute), "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := domain.SendHistory{LastHour: tt.history}.CheckSend(tt.now)
			if tt.wantSlug == "" {
				if err != nil {
					t.Fatalf("unexpected %v", err)
				}
				return
			}
			var ae *apperr.Error
			if !errors.As(err, &ae) || ae.Slug != tt.wantSlug || ae.Kind != apperr.ResourceExhausted {
				t.Fatalf("got %v, want slug %s", err, tt.wantSlug)
			}
			if ae.Message != tt.wantMsg {
				t.Fatalf("message %q, want %q", ae.Message, tt.wantMsg)
			}
			var re *domain.RetryError
			if !errors.As(err, &re) || re.RetryAfter <= 0 {
				t.Fatalf("no retry-after in %v", err)
			}
		})
	}
}

func TestDecideRefresh(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	fam := domain.Family{ID: "f", CreatedAt: t0, ExpiresAt: t0.Add(domain.FamilyLifetime)}
	active := domain.RefreshToken{CreatedAt: t0}
	parent := domain.RefreshToken{CreatedAt: t0, RotatedAt: t0.Add(time.Minute), ChildActive: true}
	grandparent := domain.RefreshToken{CreatedAt: t0, RotatedAt: t0.Add(time.Minute), ChildActive: false}
	revoked := fam
	revoked.RevokedAt = t0.Add(time.Second)
	tests := []struct {
		name string
		f    domain.Family
		tok  domain.RefreshToken
		now  time.Time
		want domain.RefreshDecision
	}{
		{"active rotates", fam, active, t0.Add(time.Hour), domain.RefreshRotate},
		{"parent within grace", fam, parent, t0.Add(time.Minute + 9*time.Second), domain.RefreshGraceReplay},
		{"parent at grace end", fam, parent, t0.Add(time.Minute + 10*time.Second), domain.RefreshRevokeFamily},
		{"parent long after", fam, parent, t0.Add(time.Hour), domain.RefreshRevokeFamily},
		{"grandparent within grace", fam, grandparent, t0.Add(time.Minute + time.Second), domain.RefreshRevokeFamily},
		{"revoked family", revoked, active, t0.Add(time.Minute), domain.RefreshRejectRevoked},
		{"family at 7 days", fam, active, t0.Add(domain.FamilyLifetime), domain.RefreshRejectExpired},
		{"family just before 7 days", fam, active, t0.Add(domain.FamilyLifetime - time.Second), domain.RefreshRotate},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := domain.DecideRefresh(tt.f, tt.tok, tt.now); got != tt.want {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
	if apperr.KindOf(domain.RefreshRevokeFamily.Err()) != apperr.Unauthenticated || domain.RefreshRotate.Err() != nil {
		t.Fatal("decision errors")
	}
}

func TestRotatorAndTokens(t *testing.T) {
	t.Parallel()
	r, err := domain.NewRotator([]byte(strings.Repeat("r", 32)))
	if err != nil {
		t.Fatal(err)
	}
	p := domain.NewRefreshToken()
	if !domain.ValidRefreshTokenFormat(p) {
		t.Fatalf("format %q", p)
	}
	c1, c2 := r.Child(p), r.Child(p)
	if c1 != c2 || c1 == p || !domain.ValidRefreshTokenFormat(c1) {
		t.Fatalf("child not deterministic/valid: %q %q", c1, c2)
	}
	r2, _ := domain.NewRotator([]byte(strings.Repeat("s", 32)))
	if r2.Child(p) == c1 {
		t.Fatal("child does not depend on the key")
	}
	if domain.NewRefreshToken() == p {
		t.Fatal("tokens repeat")
	}
	if _, err := domain.NewRotator([]byte("short")); err == nil {
		t.Fatal("short key accepted")
	}
	for _, bad := range []string{"", "abc", strings.Repeat("a", 42), strings.Repeat("a", 44), strings.Repeat("+", 43)} {
		if domain.ValidRefreshTokenFormat(bad) {
			t.Errorf("accepted %q", bad)
		}
	}
}

func TestSafeRedirect(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"": "/", "/search": "/search", "/a?b=c#d": "/a?b=c#d", "/ค้นหา": "/ค้นหา"} {
		if got, err := domain.SafeRedirect(in); err != nil || got != want {
			t.Errorf("SafeRedirect(%q) = %q, %v", in, got, err)
		}
	}
	for _, bad := range []string{"//evil.example", "https://evil.example", "/\\evil", "evil", "/a\nb", "javascript:alert(1)"} {
		if _, err := domain.SafeRedirect(bad); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

func TestUsernameFromSeed(t *testing.T) {
	t.Parallel()
	for _, seed := range []string{"", "สมชาย", "Somchai.K", strings.Repeat("x", 100), "..--__", "a"} {
		u := domain.UsernameFromSeed(seed) + "-abcdef"
		if err := domain.ValidateUsername(u); err != nil {
			t.Errorf("seed %q gave invalid %q", seed, u)
		}
	}
}

func FuzzRegisterValidation(f *testing.F) {
	f.Add("somchai", "a@b.co", "long enough pass", "สมชาย")
	f.Add("ab", "", "", "")
	f.Add("a\x00b", "x@@y", "\xff\xfe", "\u202e")
	f.Fuzz(func(t *testing.T, username, email, pw, name string) {
		nu, err := domain.ValidateRegistration(username, email, pw, name)
		if err != nil {
			var ae *apperr.Error
			if !errors.As(err, &ae) || ae.Kind != apperr.Validation || ae.Message == "" {
				t.Fatalf("non-validation error %v", err)
			}
			return
		}
		if domain.ValidateUsername(nu.Username) != nil || domain.ValidateEmail(nu.Email) != nil || domain.ValidateName(nu.Name) != nil {
			t.Fatalf("accepted invalid registration %+v", nu)
		}
		if n := utf8.RuneCountInString(domain.NormalizePassword(nu.Password)); n < 8 || n > 128 {
			t.Fatalf("accepted password of %d runes", n)
		}
	})
}

func FuzzOTPFormat(f *testing.F) {
	f.Add("123456")
	f.Add("12345")
	f.Add("๑๒๓๔๕๖")
	f.Fuzz(func(t *testing.T, s string) {
		got, err := domain.CheckOTPInput(s)
		if err != nil {
			if !errors.Is(err, domain.ErrInvalidOTPFormat) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if len(got) != 6 || strings.Trim(got, "0123456789") != "" {
			t.Fatalf("accepted %q as %q", s, got)
		}
	})
}
