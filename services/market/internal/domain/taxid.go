// Package domain holds the market's rules: tax ids, awards, the figures'
// definitions (docs/market.md#definitions) and the interfaces of everything
// outside.
package domain

import (
	"strings"

	"bidradar/pkg/apperr"
	"bidradar/pkg/thaitext"
)

// TaxIDState says what a published tax id is worth (docs/market.md#tax-ids).
type TaxIDState int

// Tax id states.
const (
	// TaxIDValid: 13 digits passing the check digit; the winner's identity.
	TaxIDValid TaxIDState = iota
	// TaxIDDamaged: an exponent form a spreadsheet made (1.05559E+11), or
	// flagged damaged by the import.
	TaxIDDamaged
	// TaxIDInvalid: anything else (wrong length, letters, a failed check digit).
	TaxIDInvalid
	// TaxIDMissing: nothing published.
	TaxIDMissing
)

// CheckDigit is the 13th digit of a Thai tax id whose first 12 digits are d:
// sum of dᵢ × (13 … 2), then (11 − sum mod 11) mod 10. d must be 12 ASCII digits.
func CheckDigit(d string) byte {
	sum := 0
	for i := 0; i < 12; i++ {
		sum += int(d[i]-'0') * (13 - i)
	}
	return byte('0' + (11-sum%11)%10)
}

// ValidTaxID reports whether s is 13 ASCII digits passing the check digit.
func ValidTaxID(s string) bool {
	if len(s) != 13 {
		return false
	}
	for i := 0; i < 13; i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return CheckDigit(s[:12]) == s[12]
}

// ClassifyTaxID reads a published tax id; damaged is the import's own flag.
// It returns the identity (the 13 digits, dashes and spaces dropped) only
// for a valid id.
func ClassifyTaxID(published string, damaged bool) (TaxIDState, string) {
	s := strings.TrimSpace(published)
	if s == "" {
		return TaxIDMissing, ""
	}
	if damaged || strings.ContainsAny(s, "Ee") && strings.ContainsAny(s, "+.") {
		return TaxIDDamaged, ""
	}
	d := strings.NewReplacer("-", "", " ", "").Replace(s)
	if ValidTaxID(d) {
		return TaxIDValid, d
	}
	return TaxIDInvalid, ""
}

// ErrInvalidTaxID is a tax id a request names that is malformed or fails
// its check digit (400).
var ErrInvalidTaxID = apperr.New(apperr.InvalidArgument, "invalid-tax-id",
	"Invalid tax id: it must be 13 digits with a valid check digit")

// ParseTaxID validates a tax id a request names (dashes and spaces allowed).
func ParseTaxID(s string) (string, error) {
	st, id := ClassifyTaxID(s, false)
	if st != TaxIDValid {
		return "", ErrInvalidTaxID
	}
	return id, nil
}

// NameKey is a winner's name as the search folds it (thaitext.Normalize):
// winners without a valid tax id are grouped by it.
func NameKey(name string) string { return thaitext.Normalize(strings.TrimSpace(name)) }

// WinnerKey is a winner's identity: its valid tax id, else its normalised name.
func WinnerKey(taxID, name string) string {
	if taxID != "" {
		return "T" + taxID
	}
	return "N" + NameKey(name)
}
