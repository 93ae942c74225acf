package domain

import (
	_ "embed"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Password policy (docs/product.md#account-fields): 8 to 128 characters of any script, no
// composition rules, and a blocklist of common passwords.
const (
	PasswordMinLength = 8
	PasswordMaxLength = 128
)

//go:embed common_passwords.txt
var commonPasswordsFile string

var commonPasswords = func() map[string]struct{} {
	m := make(map[string]struct{})
	for line := range strings.SplitSeq(commonPasswordsFile, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		m[strings.ToLower(line)] = struct{}{}
	}
	return m
}()

// IsCommonPassword reports whether pw is on the blocklist (case-insensitive,
// surrounding spaces ignored).
func IsCommonPassword(pw string) bool {
	_, ok := commonPasswords[strings.ToLower(strings.TrimSpace(pw))]
	return ok
}

// NormalizePassword puts a password into Unicode NFC so that the same
// characters typed on different keyboards (Thai "ำ" composed or not, for
// example) hash alike. Hashing and verification both use it.
func NormalizePassword(pw string) string {
	return norm.NFC.String(pw)
}

// ValidatePassword checks a new password. Length is counted in characters
// (runes) after NFC. username and email, when given, must not equal the
// password.
func ValidatePassword(pw, username, email string) error {
	if !utf8.ValidString(pw) {
		return ErrPasswordInvalid
	}
	pw = NormalizePassword(pw)
	n := utf8.RuneCountInString(pw)
	if n < PasswordMinLength {
		return ErrPasswordTooShort
	}
	if n > PasswordMaxLength {
		return ErrPasswordTooLong
	}
	for _, r := range pw {
		if unicode.IsControl(r) {
			return ErrPasswordInvalid
		}
	}
	if IsCommonPassword(pw) {
		return ErrPasswordCommon
	}
	lower := strings.ToLower(pw)
	if (username != "" && lower == strings.ToLower(username)) || (email != "" && lower == strings.ToLower(email)) {
		return ErrPasswordLikeName
	}
	return nil
}

// CheckLoginInput validates the shape of a login attempt without saying
// anything about the account.
func CheckLoginInput(login, password string) (string, error) {
	login = strings.TrimSpace(login)
	if login == "" || password == "" {
		return "", ErrLoginRequired
	}
	if len(login) > LoginMaxLength || !utf8.ValidString(login) {
		return "", ErrBadCredentials
	}
	if utf8.RuneCountInString(password) > PasswordMaxLength*2 || !utf8.ValidString(password) {
		// Too long to be one of ours: refuse before spending a hash on it.
		return "", ErrBadCredentials
	}
	return login, nil
}
