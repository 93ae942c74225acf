// Package domain holds the auth service's entities and rules: users and
// their credentials, one-time codes, refresh-token families and LINE
// identities. It knows nothing about transport or storage.
package domain

import (
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"

	"bidradar/pkg/freetext"
)

// Field limits.
const (
	UsernameMinLength = 3
	UsernameMaxLength = 32
	EmailMaxLength    = 254
	NameMaxLength     = 100
	// LoginMaxLength bounds the login identifier (a username or an e-mail).
	LoginMaxLength = EmailMaxLength
)

// User is an account.
type User struct {
	ID                string
	Username          string
	Email             string // normalised (see NormalizeEmail)
	Name              string
	PictureURL        string
	LineID            string // the LINE user id linked to this account (line_id1 in the API)
	PasswordHash      string // PHC string; empty for accounts created through LINE
	Active            bool
	TwoStep           bool
	CreatedAt         time.Time
	VerifiedAt        time.Time
	PasswordChangedAt time.Time
}

// HasPassword reports whether the account can sign in with a password.
func (u User) HasPassword() bool { return u.PasswordHash != "" }

// NewUser is the input of a registration after validation.
type NewUser struct {
	Username string
	Email    string
	Name     string
	Password string
}

// NormalizeEmail trims and lower-cases an e-mail address. Addresses are
// compared case-insensitively everywhere.
func NormalizeEmail(s string) string {
	return strings.ToLower(strings.TrimSpace(s))
}

// ValidateEmail checks a normalised address: one plain addr-spec, at most 254
// bytes, with a dot-less domain allowed only for "localhost".
func ValidateEmail(email string) error {
	if email == "" {
		return ErrEmailRequired
	}
	if len(email) > EmailMaxLength || !utf8.ValidString(email) {
		return ErrEmailInvalid
	}
	for _, r := range email {
		if r <= ' ' || r == 0x7f || r == '<' || r == '>' || r == '"' || r == ',' || r == ';' || r == '(' || r == ')' || r == '\\' {
			return ErrEmailInvalid
		}
	}
	addr, err := mail.ParseAddress(email)
	if err != nil || addr.Address != email || addr.Name != "" {
		return ErrEmailInvalid
	}
	at := strings.LastIndexByte(email, '@')
	if at < 1 || at == len(email)-1 {
		return ErrEmailInvalid
	}
	domain := email[at+1:]
	if strings.HasPrefix(domain, ".") || strings.HasSuffix(domain, ".") || strings.Contains(domain, "..") {
		return ErrEmailInvalid
	}
	return nil
}

// ValidateUsername checks 3 to 32 ASCII letters, digits, '.', '_' or '-'.
func ValidateUsername(s string) error {
	if len(s) < UsernameMinLength || len(s) > UsernameMaxLength {
		return ErrUsernameInvalid
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '_', c == '-':
		default:
			return ErrUsernameInvalid
		}
	}
	return nil
}

// NormalizeName trims a display name and collapses inner whitespace.
func NormalizeName(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// ValidateName checks an optional display name: valid UTF-8, at most 100
// characters, no control characters or bidirectional overrides
// (pkg/freetext, the one check of typed text).
func ValidateName(s string) error {
	if !utf8.ValidString(s) || utf8.RuneCountInString(s) > NameMaxLength {
		return ErrNameInvalid
	}
	if !freetext.Valid(s, freetext.SingleLine) {
		return ErrNameInvalid
	}
	return nil
}

// ValidateRegistration normalises and validates a registration. It returns
// the first rule broken, in field order.
func ValidateRegistration(username, email, password, name string) (NewUser, error) {
	nu := NewUser{
		Username: strings.TrimSpace(username),
		Email:    NormalizeEmail(email),
		Name:     NormalizeName(name),
		Password: password,
	}
	if err := ValidateUsername(nu.Username); err != nil {
		return NewUser{}, err
	}
	if err := ValidateEmail(nu.Email); err != nil {
		return NewUser{}, err
	}
	if err := ValidatePassword(password, nu.Username, nu.Email); err != nil {
		return NewUser{}, err
	}
	if err := ValidateName(nu.Name); err != nil {
		return NewUser{}, err
	}
	return nu, nil
}

// UsernameFromSeed derives a valid username candidate from free text (an
// e-mail local part or a LINE display name): allowed characters only,
// padded to the minimum length and cut to leave room for a suffix.
func UsernameFromSeed(seed string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(seed) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r == '.' || r == '_' || r == '-' {
			b.WriteRune(r)
		}
		if b.Len() >= UsernameMaxLength-7 {
			break
		}
	}
	s := strings.Trim(b.String(), ".-_")
	if len(s) < UsernameMinLength {
		s = "user" + s
	}
	return s
}
